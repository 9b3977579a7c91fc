"""i915's GPU error state read from /sys/class/drm/card*/error (i915_gpu_error.c
__err_print_to_sgl, i915_error_state_to_str before 5.x): the capture opens with the hang's
own "GPU HANG: ecode …" line and no printk prefix or stamp; that line is the kernel's, so a
paste of the capture is read, not refused, and names the hang."""

from __future__ import annotations

from kmsgd.logparse.origin import kernel_opening
from tests.catalogue.lines import paste_primary

CAPTURE = """<details>
GPU HANG: ecode 12:1:85def5fb, in llama-bench [1538400]
Platform: METEORLAKE
EIR: 0x00000000
-- engine rcs0 --
  hung: 1
</details>
"""


def test_the_error_state_s_first_line_opens_as_the_kernel_s() -> None:
    assert kernel_opening("GPU HANG: ecode 12:1:85def5fb, in llama-bench [1538400]")
    assert kernel_opening("GPU HANG: ecode 9:0:0x85dffffb, in chameleon [1296]")  # 4.x
    assert not kernel_opening("GPU HANG in my game, help")


def test_a_pasted_error_state_names_the_gpu_hang() -> None:
    assert paste_primary(CAPTURE) == "i915_gpu_hang"
