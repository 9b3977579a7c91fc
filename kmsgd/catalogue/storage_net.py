"""Storage reached over a network or a fabric: the transport failures below the block layer.

An iSCSI connection (drivers/scsi/libiscsi.c, scsi_transport_iscsi.c), a Fibre Channel
HBA's link (drivers/scsi/qla2xxx) or an NFS server (net/sunrpc/clnt.c) failing is what
makes the block devices or mounts behind it fail: the I/O errors, read-only remounts and
hung tasks after such a line are its consequence (kmsgd/judge/chains.py). dev_printk of the
iSCSI class devices has no driver name, so their lines open with a space
(" connection1:0: ", " session1: ").
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

STORAGE_NET = "storage.net"
_ISCSI_CONN = " connection1:0: "  # iscsi_conn_printk / iscsi_cls_conn_printk: dev_printk
_ISCSI_SESSION = " session1: "  # iscsi_cls_session_printk: dev_printk

STORAGE_NET_SIGNATURES: tuple[Signature, ...] = (
    # drivers/scsi/scsi_transport_iscsi.c iscsi_conn_error_event: iscsi_cls_conn_printk(…,
    # "detected conn error (%d)") (4.4-6.18; "iscsi: detected conn error (%d)" in 2.6);
    # session_recovery_timedout: iscsi_cls_session_printk(…, "session recovery timed out
    # after %u secs") (4.4-6.18; %d before 4.x); drivers/scsi/libiscsi.c iscsi_check_transport_
    # timeouts: iscsi_conn_printk(KERN_ERR, …, "ping timeout of %d secs expired, recv timeout
    # %d, last rx %lu, last ping %lu, now %lu") (4.4-6.18)
    sig(
        "iscsi_connection_error",
        r"detected conn error \(\d+\)|session recovery timed out after \d+ secs"
        r"|ping timeout of \d+ secs expired, recv timeout",
        ("conn", "recovery", "ping"),
        Severity.ERROR,
        STORAGE_NET,
        "An iSCSI connection to a storage target failed (no answer to the initiator's ping, "
        "or the session was not restored in time): the disks of that target stop answering.",
        "Check the storage network (NIC link, switch, MTU, the target's state); the "
        "session's replacement_timeout (iscsid.conf) decides when its disks go offline.",
        46,
        formats=(
            Format(
                "detected conn error (%d)",
                "drivers/scsi/scsi_transport_iscsi.c",
                "4.4-6.18",
                _ISCSI_CONN,
                args=(1022,),
            ),
            Format(
                "session recovery timed out after %u secs",
                "drivers/scsi/scsi_transport_iscsi.c",
                "4.4-6.18",
                _ISCSI_SESSION,
                args=(120,),
            ),
            Format(
                "ping timeout of %d secs expired, recv timeout %d, last rx %lu, last ping %lu, "
                "now %lu",
                "drivers/scsi/libiscsi.c",
                "4.4-6.18",
                _ISCSI_CONN,
                args=(5, 5, 4612295841, 4612297092, 4612298344),
            ),
        ),
    ),
    # drivers/scsi/qla2xxx/qla_isr.c qla2x00_async_event MBA_LOOP_DOWN: ql_log(ql_log_info,
    # vha, 0x500b, "LOOP DOWN detected (%x %x %x %x)") (4.4-6.18), printed by qla_dbg.c
    # ql_log as "qla2xxx [<bus id>]-<id>:<host>: "
    sig(
        "fc_link_down",
        r"LOOP DOWN detected \(",
        ("LOOP",),
        Severity.ERROR,
        STORAGE_NET,
        "A Fibre Channel HBA lost its link (the loop or the fabric went down): the paths "
        "through that port fail until it comes back.",
        "Check the fibre, the SFP and the switch port of that HBA; with multipath, check "
        "that the other paths took over (multipath -ll).",
        46,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "LOOP DOWN detected (%x %x %x %x).",
                "drivers/scsi/qla2xxx/qla_isr.c",
                "4.4-6.18",
                "qla2xxx [0000:81:00.1]-500b:10: ",
                args=(2, 7, 0, 0),
            ),
        ),
    ),
    # net/sunrpc/clnt.c rpc_check_timeout (call_timeout before 5.x): "%s: server %s not
    # responding, still trying" (hard mounts) and "%s: server %s not responding, timed out"
    # (soft), %s the RPC program ("nfs", "lockd", "portmap"); printk KERN_NOTICE, 4.x
    # pr_notice_ratelimited (4.4-6.18). Its "%s: server %s OK" closes it (judge/chains.py)
    sig(
        "nfs_server_not_responding",
        r"(?:^|\s)\w+: server \S+ not responding, (?:still trying|timed out)",
        ("responding",),
        Severity.ERROR,
        STORAGE_NET,
        "An NFS server stopped answering: the processes using its mounts wait in the kernel "
        "(hard mounts) or get I/O errors (soft mounts).",
        "Check the server and the network to it; tasks blocked on the mount recover when "
        "the server answers again ('server … OK').",
        46,
        formats=(
            Format(
                "%s: server %s not responding, still trying",
                "net/sunrpc/clnt.c",
                "4.4-6.18",
                args=("nfs", "ease"),
            ),
            Format(
                "%s: server %s not responding, timed out",
                "net/sunrpc/clnt.c",
                "4.4-6.18",
                args=("nfs", "nas01"),
            ),
        ),
    ),
)
