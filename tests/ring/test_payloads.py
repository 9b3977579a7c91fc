"""Every JSON kind through the ring's codec: the typed value a source emits encodes to the bytes
kmsgd has always written for it (the literals below), and those bytes decode to that value.

The literals were written by the encoder that took the sources' JSON objects before the kinds
had types; a change to any of them is a change of the ring format (docs/ring-format.md).
"""

from __future__ import annotations

import pytest

from kmsgd.record.sysctl_set import Failure, SysctlChange, to_record
from kmsgd.ring import frame as fr
from kmsgd.ring import pstore
from kmsgd.ring.events import DeviceEvent, DumpEvent, EventName, SensorEvent
from kmsgd.ring.incident import BlockedTask, End, GpuHolder, IncidentRecord, Procs, Trigger
from kmsgd.ring.inventory import Inventory
from kmsgd.ring.payloads import Payload
from kmsgd.ring.pstore import DumpReason, PstoreDump
from kmsgd.ring.records import Damaged, Kind
from kmsgd.ring.samples import (
    DeviceSample,
    MemoryHolder,
    MemorySample,
    PowerStats,
    PowerStep,
    ProcsSample,
)

DEVICE = DeviceSample(
    "amdgpu",
    "0000:03:00.0",
    "amdgpu",
    12_345_678,
    {"edge.temp_c": 61.5, "ppt.power_w": 287.25, "fan1.rpm": 1450.5},
    {"ppt": PowerStats(12.5, 301.5, (12.5, None, 301.5))},
    (-200, -100, 0),
    PowerStep("ppt", 12.5, 301.5),
    True,
)
DEVICE_PLAIN = DeviceSample("hwmon", "coretemp.0", "coretemp", 5, {"package_id_0.temp_c": 48.0})
MEMORY = MemorySample(
    7_000_000,
    64 << 30,
    1 << 30,
    8 << 30,
    8 << 30,
    {"memory.full_avg10_pct": 35.5, "memory.some_total_us": 1234.0},
)
PROCS = ProcsSample(9, (MemoryHolder(4321, "llama-server", 1 << 33, 1 << 34, 1 << 28),), 312)
STALL = SensorEvent(
    EventName.SENSOR_STALL,
    "/sys/class/hwmon/hwmon3/power1_average",
    "0000:03:00.0",
    11,
    "",
    "",
    4.25,
)
ERROR = SensorEvent(EventName.SENSOR_ERROR, "/sys/x", "coretemp.0", 12, "EIO", "read failed")
DUMP = DumpEvent(
    EventName.DEVCOREDUMP_SAVED,
    "devcd3",
    "0000:43:00.0",
    13,
    "/var/lib/kmsgd/devcoredump/x.bin",
    3145728,
    False,
    "amdgpu",
)
UDEV = DeviceEvent(
    "remove",
    "drm",
    "/devices/pci0000:00/0000:00:01.1/0000:03:00.0/drm/card1",
    "card1",
    14,
    "amdgpu",
    "0000:03:00.0",
    4711,
)
PSTORE = PstoreDump(
    "ramoops",
    DumpReason.PANIC,
    1,
    (2, 1),
    ("/sys/fs/pstore/dmesg-ramoops-1", "/sys/fs/pstore/dmesg-ramoops-0"),
    (1700000000000000, 1700000000000001),
    "<0>[  100.000000] Kernel panic - not syncing: hung_task: blocked tasks\n<4>[  100.000001] CPU: 3 PID: 1\n",
    "ab" * 16,
    (3,),
    False,
    True,
    17,
)
INVENTORY_ARGS = dict(
    mono_us=15,
    kernel="6.8.0-49-generic",
    cmdline="BOOT_IMAGE=/vmlinuz root=/dev/sda1 iommu=pt",
    gpus=(
        {
            "device": "0000:03:00.0",
            "driver": "amdgpu",
            "vendor_id": "1002",
            "device_id": "744c",
            "firmware": {"smc": "0x00553700"},
            "power1.cap_w": 289.0,
            "link_speed": "16.0 GT/s PCIe",
        },
    ),
    hwmon=(
        {
            "hwmon": "hwmon3",
            "name": "amdgpu",
            "device": "0000:03:00.0",
            "driver": "amdgpu",
            "channels": {"power1": "PPT"},
        },
    ),
    iommu_group_types={"identity": 12},
    aspm_policy="default",
    sysctls={"kernel.panic": "30", "kernel.printk": "4 4 1 7"},
    host={"board_name": "X570", "cpu_model": "AMD Ryzen 9", "mem_total_bytes": 68719476736},
)
SYSCTL = [("kernel.panic", "30", "0", "30", None), ("kernel.x", "1", None, None, "missing")]
INCIDENT_START = dict(
    at_s=0.0,
    trigger="hung_task",
    cls="hang",
    source="kernel",
    line="INFO: task llama-server:4321 blocked for more than 120 seconds.",
    actions={
        "durable_s": 60.0,
        "boost_s": 30.0,
        "gpu_hz": 10.0,
        "memory_hz": 4.0,
        "procs": True,
        "gpus": True,
        "sysrq": "w",
        "devcoredump": True,
    },
)
INCIDENT_PROCS = dict(
    at_s=0.5,
    took_ms=12.3,
    load=[4.5, 2.0, 1.0],
    tasks=812,
    blocked=[
        {
            "pid": 4321,
            "tid": 4321,
            "comm": "llama-server",
            "wchan": "dma_fence_wait",
            "in": "amdgpu_fence_wait_timeout",
            "stack": ["amdgpu_fence_wait_timeout+0x1c/0x40", "drm_ioctl+0x2d/0x60"],
        }
    ],
    top_ram=[],
    top_gpu=[{"pid": 4321, "comm": "llama-server", "gpu_bytes": 17179869184}],
)
INCIDENT_END = dict(
    at_s=61.0,
    trigger="hung_task",
    cls="hang",
    line="INFO: task",
    reason="quiet",
    duration_s=61.0,
    triggers=3,
    classes=["hang"],
    suppressed=0,
    bytes=123456,
    captured={"procs": 2, "gpus": 2, "boosted_s": 30.0, "durable_s": 61.0},
)


FIXTURES = {
    "device": (
        b'{"sample":"device","source":"amdgpu","device":"0000:03:00.0","driver":"amdgpu","mono'
        b'_us":12345678,"values":{"edge.temp_c":61.5,"ppt.power_w":287.25,"fan1.rpm":1450.5},"'
        b'power":{"ppt":{"min_w":12.5,"max_w":301.5,"raw_w":[12.5,null,301.5]}},"raw_ms":[-200'
        b',-100,0],"step":{"sensor":"ppt","from_w":12.5,"to_w":301.5},"partial":true}'
    ),
    "device_plain": (
        b'{"sample":"device","source":"hwmon","device":"coretemp.0","driver":"coretemp","mono_'
        b'us":5,"values":{"package_id_0.temp_c":48.0}}'
    ),
    "memory": (
        b'{"sample":"memory","mono_us":7000000,"mem_total_bytes":68719476736,"mem_available_by'
        b'tes":1073741824,"swap_total_bytes":8589934592,"swap_free_bytes":8589934592,"psi":{"m'
        b'emory.full_avg10_pct":35.5,"memory.some_total_us":1234.0}}'
    ),
    "procs": (
        b'{"sample":"procs","mono_us":9,"scanned":312,"top":[{"pid":4321,"comm":"llama-server"'
        b',"rss_bytes":8589934592,"gpu_vram_bytes":17179869184,"gpu_gtt_bytes":268435456}]}'
    ),
    "stall": (
        b'{"event":"sensor_stall","path":"/sys/class/hwmon/hwmon3/power1_average","device":"00'
        b'00:03:00.0","mono_us":11,"duration_s":4.25}'
    ),
    "error": (
        b'{"event":"sensor_error","path":"/sys/x","device":"coretemp.0","mono_us":12,"reason":'
        b'"EIO","detail":"read failed"}'
    ),
    "dump": (
        b'{"event":"devcoredump_saved","source":"devcd3","failing_device":"0000:43:00.0","mono'
        b'_us":13,"saved_path":"/var/lib/kmsgd/devcoredump/x.bin","size_bytes":3145728,"trunca'
        b'ted":false,"driver":"amdgpu"}'
    ),
    "udev": (
        b'{"action":"remove","subsystem":"drm","devpath":"/devices/pci0000:00/0000:00:01.1/000'
        b'0:03:00.0/drm/card1","sys_name":"card1","mono_us":14,"driver":"amdgpu","pci":"0000:0'
        b'3:00.0","seqnum":4711}'
    ),
    "pstore": (
        b'{"v":1,"digest":"abababababababababababababababab","backend":"ramoops","reason":"pan'
        b'ic","count":1,"parts":[2,1],"missing_parts":[3],"paths":["/sys/fs/pstore/dmesg-ramoo'
        b'ps-1","/sys/fs/pstore/dmesg-ramoops-0"],"mtimes_us":[1700000000000000,17000000000000'
        b'01],"undecodable":false,"archived":true,"truncated_bytes":17,"text":"<0>[  100.00000'
        b"0] Kernel panic - not syncing: hung_task: blocked tasks\\n<4>[  100.000001] CPU: 3 PI"
        b'D: 1\\n"}'
    ),
    "pstore_cut": (
        b'{"v":1,"digest":"abababababababababababababababab","backend":"ramoops","reason":"pan'
        b'ic","count":1,"parts":[2,1],"missing_parts":[3],"paths":["/sys/fs/pstore/dmesg-ramoo'
        b'ps-1","/sys/fs/pstore/dmesg-ramoops-0"],"mtimes_us":[1700000000000000,17000000000000'
        b'01],"undecodable":false,"archived":true,"truncated_bytes":88,"text":"<4>[  100.00000'
        b'1] CPU: 3 PID: 1\\n"}'
    ),
    "inventory": (
        b'{"mono_us":15,"kernel":"6.8.0-49-generic","cmdline":"BOOT_IMAGE=/vmlinuz root=/dev/s'
        b'da1 iommu=pt","gpus":[{"device":"0000:03:00.0","driver":"amdgpu","vendor_id":"1002",'
        b'"device_id":"744c","firmware":{"smc":"0x00553700"},"power1.cap_w":289.0,"link_speed"'
        b':"16.0 GT/s PCIe"}],"hwmon":[{"hwmon":"hwmon3","name":"amdgpu","device":"0000:03:00.'
        b'0","driver":"amdgpu","channels":{"power1":"PPT"}}],"iommu_group_types":{"identity":1'
        b'2},"aspm_policy":"default","sysctls":{"kernel.panic":"30","kernel.printk":"4 4 1 7"}'
        b',"host":{"board_name":"X570","cpu_model":"AMD Ryzen 9","mem_total_bytes":68719476736'
        b"}}"
    ),
    "sysctl": (
        b'{"changes":[{"key":"kernel.panic","desired":"30","old":"0","new":"30","error":null},'
        b'{"key":"kernel.x","desired":"1","old":null,"new":null,"error":"missing"}]}'
    ),
    "incident_start": (
        b'{"record":"start","incident":1,"mono_us":99,"at_s":0.0,"trigger":"hung_task","source'
        b'":"kernel","line":"INFO: task llama-server:4321 blocked for more than 120 seconds.",'
        b'"actions":{"durable_s":60.0,"boost_s":30.0,"gpu_hz":10.0,"memory_hz":4.0,"procs":tru'
        b'e,"gpus":true,"sysrq":"w","devcoredump":true},"class":"hang"}'
    ),
    "incident_procs": (
        b'{"record":"procs","incident":1,"mono_us":99,"at_s":0.5,"took_ms":12.3,"load":[4.5,2.'
        b'0,1.0],"tasks":812,"blocked":[{"pid":4321,"tid":4321,"comm":"llama-server","wchan":"'
        b'dma_fence_wait","in":"amdgpu_fence_wait_timeout","stack":["amdgpu_fence_wait_timeout'
        b'+0x1c/0x40","drm_ioctl+0x2d/0x60"]}],"top_ram":[],"top_gpu":[{"pid":4321,"comm":"lla'
        b'ma-server","gpu_bytes":17179869184}]}'
    ),
    "incident_end": (
        b'{"record":"end","incident":1,"mono_us":99,"at_s":61.0,"trigger":"hung_task","line":"'
        b'INFO: task","reason":"quiet","duration_s":61.0,"triggers":3,"classes":["hang"],"supp'
        b'ressed":0,"bytes":123456,"captured":{"procs":2,"gpus":2,"boosted_s":30.0,"durable_s"'
        b':61.0},"class":"hang"}'
    ),
}


def _incident(record: str, data: dict[str, object]) -> IncidentRecord:
    fields = dict(data)
    if "cls" in fields:
        fields["class"] = fields.pop("cls")  # as kmsgd/record/incident_mode.py writes it
    return IncidentRecord.of(record, 1, 99, fields)


def _sysctl() -> Payload:
    return to_record(
        [SysctlChange(k, d, o, n, False, Failure(e) if e else None) for k, d, o, n, e in SYSCTL]
    )


CASES: list[tuple[str, Kind, Payload]] = [
    ("device", Kind.SAMPLE, DEVICE),
    ("device_plain", Kind.SAMPLE, DEVICE_PLAIN),
    ("memory", Kind.SAMPLE, MEMORY),
    ("procs", Kind.SAMPLE, PROCS),
    ("stall", Kind.EVENT, STALL),
    ("error", Kind.EVENT, ERROR),
    ("dump", Kind.EVENT, DUMP),
    ("udev", Kind.DEVICE, UDEV),
    ("pstore", Kind.PSTORE, pstore.for_ring(PSTORE)),
    ("pstore_cut", Kind.PSTORE, pstore.for_ring(PSTORE, text_bytes=40)),
    ("inventory", Kind.INVENTORY, Inventory(**INVENTORY_ARGS)),  # type: ignore[arg-type]
    ("sysctl", Kind.SYSCTL, _sysctl()),
    ("incident_start", Kind.INCIDENT, _incident("start", INCIDENT_START)),
    ("incident_procs", Kind.INCIDENT, _incident("procs", INCIDENT_PROCS)),
    ("incident_end", Kind.INCIDENT, _incident("end", INCIDENT_END)),
]


@pytest.mark.parametrize(("name", "kind", "value"), CASES, ids=[c[0] for c in CASES])
def test_a_typed_record_is_the_bytes_kmsgd_writes_and_reads_back_as_itself(
    name: str, kind: Kind, value: Payload
) -> None:
    raw = FIXTURES[name]
    assert fr.encode_payload(kind, value) == raw
    back = fr.decode_payload(kind, raw)
    assert back == value
    assert fr.encode_payload(kind, back) == raw  # `kmsgd dump` shows what the ring holds


def test_every_json_kind_has_a_case() -> None:
    json_kinds = {k for k in Kind if k is not Kind.KERNEL}
    typed_by_fields = {Kind.BOOT, Kind.HEARTBEAT, Kind.LOST, Kind.STOP}  # tests/ring/test_ring.py
    assert {kind for _, kind, _ in CASES} == json_kinds - typed_by_fields


def test_what_the_judge_reads_of_an_incident_is_decoded_with_it() -> None:
    start = fr.decode_payload(Kind.INCIDENT, FIXTURES["incident_start"])
    procs = fr.decode_payload(Kind.INCIDENT, FIXTURES["incident_procs"])
    end = fr.decode_payload(Kind.INCIDENT, FIXTURES["incident_end"])
    assert isinstance(start, IncidentRecord) and start.detail == Trigger(
        "hung_task", "hang", "kernel", INCIDENT_START["line"]
    )
    assert isinstance(procs, IncidentRecord) and procs.detail == Procs(
        (
            BlockedTask(
                4321,
                4321,
                "llama-server",
                "amdgpu_fence_wait_timeout",
                ("amdgpu_fence_wait_timeout+0x1c/0x40", "drm_ioctl+0x2d/0x60"),
            ),
        ),
        GpuHolder(4321, "llama-server", 17179869184),
    )
    assert isinstance(end, IncidentRecord) and isinstance(end.detail, End)
    assert (end.detail.reason, end.detail.duration_s, end.detail.triggers) == ("quiet", 61.0, 3)


def test_an_integral_reading_written_compact_decodes_to_the_same_value() -> None:
    # the sampler writes 71.0 as 71 (kmsgd/sensors/device.py); the judge computes in floats
    sample = DeviceSample("hwmon", "coretemp.0", "coretemp", 5, {"t.temp_c": 71})
    raw = fr.encode_payload(Kind.SAMPLE, sample)
    assert b'"t.temp_c":71}' in raw
    back = fr.decode_payload(Kind.SAMPLE, raw)
    assert back == sample and isinstance(back, DeviceSample)
    assert type(back.values["t.temp_c"]) is float


@pytest.mark.parametrize(
    ("kind", "raw", "error"),
    [
        (Kind.SAMPLE, b'{"sample":"fridge","mono_us":1}', "unknown sample shape 'fridge'"),
        (Kind.SAMPLE, b'{"sample":"device","values":[1,2]}', "sample payload that does not decode"),
        (Kind.EVENT, b'{"event":"someone_elses"}', "event payload that does not decode"),
        (Kind.PSTORE, b'{"v":2}', "pstore record version 2 is not 1"),
        (Kind.INCIDENT, b'{"record":"start"}', "without an incident number"),
        (Kind.INVENTORY, b"[1]", "payload is not an object"),
        (
            Kind.SYSCTL,
            b'{"error":"record too large for the ring","kind":"sysctl","bytes":2000000}',
            "record too large",
        ),
    ],
)
def test_a_payload_that_does_not_decode_is_damaged_with_its_size(
    kind: Kind, raw: bytes, error: str
) -> None:
    got = fr.decode_payload(kind, raw)
    assert isinstance(got, Damaged) and error in got.error
    assert got.size == (2000000 if b"too large" in raw else len(raw))
