"""Prints the worked examples of docs/operator-guide.md: one played boot per outcome.

Run: .venv/bin/python tools/worked_examples.py > /tmp/examples.md
"""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from pathlib import Path

from scenario import Machine

from kmsgd.commands import lastboot
from kmsgd.report.render import render
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import Kind
from kmsgd.ring.samples import MemorySample

GIB=1<<30
def judge(m, spec=None, cur=-1):
    with RingReader(str(m.ring)) as r:
        return lastboot.report(r, spec, lastboot.Options(current_boot_id=m.boots[cur].boot_id))
def new():
    return Machine(Path(tempfile.mkdtemp()))
out = {}
m=new(); b=m.boot(); b.run(30); b.shutdown(); m.boot(after_s=20); out['clean_shutdown']=judge(m)
m=new(); b=m.boot(); b.run(30); b.shutdown(reboot=True); m.boot(after_s=20); out['clean_reboot']=judge(m)
m=new(); b=m.boot(); b.run(30); b.log("watchdog: BUG: soft lockup - CPU#3 stuck for 26s! [llama-server:4187]",0); b.run(1); b.log("Kernel panic - not syncing: softlockup: hung tasks",0); b.die(); m.boot(after_s=35); out['kernel_panic']=judge(m)
m=new(); b=m.boot(); b.run(60)
for l in ("amdgpu 0000:03:00.0: amdgpu: SMU: I'm not done with your previous command: SMN_C2PMSG_66:0x00000006 SMN_C2PMSG_82:0x00000000","[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, signaled seq=18842, emitted seq=18845"):
    b.log(l,3); b.run(1)
b.run(150); b.die(); m.boot(after_s=600); out['hard_freeze']=judge(m)
m=new(); b=m.boot(); b.run(20)
for i in range(40):
    b.emit(Kind.SAMPLE, MemorySample(b.clock.mono_us(), 121*GIB, int(90*GIB-i*(89.7*GIB/39)), 0,0,{"memory.full_avg10_pct": min(78.0,i*2.0)}).to_payload()); b.run(1)
for n in range(3):
    b.log(f"Out of memory: Killed process {4301+n} (llama-server) total-vm:118000000kB, anon-rss:12000000kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:24000kB oom_score_adj:0",3); b.run(8, every=8)
b.die(); m.boot(after_s=360); out['hang_memory_exhaustion']=judge(m)
m=new(); b=m.boot(); b.run(60); b.die(); m.boot(after_s=41); out['abrupt_reset_or_power_loss']=judge(m)
m=new(); b=m.boot(); b.run(60); b.die(); m.boot(after_s=30, early=("Linux version 6.16.0","x86/amd: Previous system reset reason [0x02000000]: hardware watchdog timer expired")); out['watchdog_reset']=judge(m)
m=new(); b=m.boot(); b.run(60); b.log("thermal thermal_zone0: critical temperature reached (105 C), shutting down",2); b.run(1); b.die(); m.boot(after_s=300); out['thermal_shutdown']=judge(m)
m=new(); b=m.boot(); b.run(30); b.stop_service_only(); m.boot(after_s=900); out['recorder_stopped']=judge(m)
m=new(); b=m.boot(); b.die(); m.boot(after_s=30); out['unknown']=judge(m)
m=new(); b=m.boot(); b.run(30); b.shutdown(); b=m.boot(after_s=20); b.run(10); out['still_running']=judge(m, "0")
for k, rep in out.items():
    text = render(rep, 'text').splitlines()
    print(f"### `{k}`\n\n```text")
    print("\n".join(text[:2]))
    ev=[l for l in text if l.startswith("  - ")][:4]
    if ev: print("Evidence:"); print("\n".join(ev))
    tod=[l for l in text if l.startswith("Time of death")]
    if tod: print(tod[0])
    print("```\n")
    assert rep.outcome.value == k, (k, rep.outcome)
