"""A memory hog for the OOM scenario: touches 32 MiB chunks until the OOM killer takes it.

Named `lab-mem-hog` (comm), so the report can be checked for naming the top memory holder.
"""

import ctypes
import time

ctypes.CDLL(None).prctl(15, b"lab-mem-hog", 0, 0, 0)  # PR_SET_NAME
chunks = []
while True:
    chunks.append(bytearray(b"\x01" * (32 << 20)))
    time.sleep(0.05)
