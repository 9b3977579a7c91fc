"""The culprit-order refinement corpus batch 26 (docs/accuracy.md) showed missing: a GPU
driver's error that names no device (amdgpu_job_timedout's DRM_ERROR of 5.x) is the same
device's as an IOMMU fault printed under that driver's name for its device, so the fault is
its effect (chains.py _same_device); a fault under another driver's name still leads."""

from __future__ import annotations

from tests.catalogue.lines import primary_of

TIMEOUT = (
    "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring vcn_dec_1 timeout, signaled seq=623, "
    "emitted seq=624"
)
FAULT = "AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x001e address=0x56e300 flags=0x0000]"


def test_device_less_gpu_error_leads_the_iommu_faults_of_its_driver_s_device() -> None:
    assert primary_of(TIMEOUT, "amdgpu 0000:0d:00.0: " + FAULT) == "amdgpu_ring_timeout"


def test_an_iommu_fault_of_another_driver_s_device_still_leads() -> None:
    assert primary_of(TIMEOUT, "xhci_hcd 0000:0e:00.3: " + FAULT) == "iommu_fault"
