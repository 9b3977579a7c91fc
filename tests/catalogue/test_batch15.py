"""Wordings corpus batch 15 (docs/accuracy.md) showed missing: each line as its source's
format string prints it (file named in the catalogue entry), and the lines with the same
words that must not match."""

from __future__ import annotations

import pytest

from tests.catalogue.lines import check_wording

# tag → (positives, negatives)
BATCH15_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "xen_domain_crash": (
        [
            "(XEN) domain_crash called from p2m-pod.c:1218",
            "(XEN) [ 3423.961388] domain_crash called from "
            "arch/x86/hvm/vmx/vmx.c#vmx_update_guest_cr+0x516/0x6a0",
            "(XEN) Domain 29 (vcpu#1) crashed on cpu#4:",
        ],
        [
            "(XEN) p2m_pod_demand_populate: Dom29 out of PoD memory! (tot=128016 ents=40416)",
            "(XEN) Hardware Dom0 shutdown: rebooting machine",
        ],
    ),
    "netdev_hw_csum_failure": (
        [
            "eth0: hw csum failure",  # pr_err with the device's name (to 6.1)
            "<unknown>: hw csum failure",
            "(NULL net_device): hw csum failure",  # netdev_err without a device (6.2+)
            "mlx5_core 0000:01:00.0 eth1: hw csum failure",
        ],
        [
            "icmp v4 hw csum failure",  # ipv4/icmp.c's 2.6 KERN_DEBUG line
            "skb len=180 headroom=98 headlen=180 tailroom=42",
        ],
    ),
    "mlx5_probe_failure": (
        [
            # main.c init_one: dev_err (4.x), mlx5_core_err with its func:line:(pid) prefix
            "mlx5_core 0000:03:00.0: mlx5_load_one failed with error code -22",
            "mlx5_core 0000:41:00.0: init_one:1371:(pid 803): mlx5_load_one failed with "
            "error code -22",
            # the 5.15+ name of the same step
            "mlx5_core 0000:41:00.0: probe_one:2031:(pid 803): mlx5_init_one failed with "
            "error code -110",
            "mlx5_core 0000:41:00.0: mlx5_pci_init failed with error code -19",
        ],
        [
            "mlx5_core 0000:03:00.0: firmware version: 14.32.1010",
            "mlx5_core 0000:03:00.0: mlx5_crdump_enable failed with error code -5",
            "mlx5_core 0000:03:00.0: mlx5_pci_resume was called",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(BATCH15_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(BATCH15_EXAMPLES, tag)
