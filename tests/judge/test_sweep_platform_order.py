"""The culprit order of the platform sweep's families (kmsgd/judge/chains.py): the PCIe error
leads the failed recovery, the link that did not retrain and the lost devices after it; a
failed recovery or a link that did not train leads what its lost device prints next."""

from __future__ import annotations

from tests.catalogue.lines import paste_primary

PORT = "pcieport 0000:00:01.4: "


def test_a_dpc_containment_leads_the_link_that_does_not_retrain_and_the_failed_recovery() -> None:
    text = "\n".join(
        [
            "[ 20.000000] " + PORT + "DPC: containment event, status:0x1f01 source:0x0000",
            "[ 20.000100] " + PORT + "DPC: unmasked uncorrectable error detected",
            "[ 20.000200] nvme nvme2: frozen state error detected, reset controller",
            "[ 21.100000] " + PORT + "DPC: Data Link Layer Link Active not set in 1000 msec",
            "[ 21.100100] " + PORT + "AER: subordinate device reset failed",
            "[ 21.100200] " + PORT + "AER: device recovery failed",
            "[ 21.200000] nvme2n1: detected capacity change from 1953525168 to 0",
        ]
    )
    assert paste_primary(text) == "pcie_link_down"


def test_a_failed_recovery_leads_the_gpu_that_fell_off_the_bus_after_it() -> None:
    text = "\n".join(
        [
            "[ 30.000000] " + PORT + "AER: device recovery failed",
            "[ 31.000000] NVRM: Xid (PCI:0000:41:00): 79, pid=1234, name=python3, GPU has "
            "fallen off the bus.",
        ]
    )
    assert paste_primary(text) == "aer_recovery_failure"


def test_a_link_that_does_not_train_after_resume_leads_the_device_that_does_not_answer() -> None:
    text = "\n".join(
        [
            "[ 40.000000] pcieport 0000:00:01.1: broken device, retraining non-functional "
            "downstream link at 2.5GT/s",
            "[ 40.100000] pcieport 0000:00:01.1: retraining failed",
            "[ 41.100000] pcieport 0000:00:01.1: Data Link Layer Link Active not set in 1000 msec",
            "[ 41.200000] pcieport 0000:01:00.0: Unable to change power state from D3cold to D0, "
            "device inaccessible",
        ]
    )
    assert paste_primary(text) == "pcie_link_training_failure"
