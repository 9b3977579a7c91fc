"""Storage reached over a network or a fabric: the transport failures below the block layer.

An iSCSI connection (drivers/scsi/libiscsi.c, scsi_transport_iscsi.c), a Fibre Channel
HBA's link (drivers/scsi/qla2xxx), an NFS server (net/sunrpc/clnt.c) or the Ceph cluster of
the kernel's RBD and CephFS clients (net/ceph, fs/ceph) failing is what makes the block
devices or mounts behind it fail: the I/O errors, read-only remounts and
hung tasks after such a line are its consequence (kmsgd/judge/chains.py). dev_printk of the
iSCSI class devices has no driver name, so their lines open with a space
(" connection1:0: ", " session1: ").
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

STORAGE_NET = "storage.net"
_ISCSI_CONN = " connection1:0: "  # iscsi_conn_printk / iscsi_cls_conn_printk: dev_printk
_ISCSI_SESSION = " session1: "  # iscsi_cls_session_printk: dev_printk
_LIBCEPH = "libceph: "  # include/linux/ceph/ceph_debug.h pr_fmt: KBUILD_MODNAME ": "
_CEPH_CON = "net/ceph/messenger.c"

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
    # ql_log as "qla2xxx [<bus id>]-<id>:<host>: "; qla_init.c qla24xx_handle_gnl_done_event
    # ql_log(ql_log_info, vha, 0x705d, "Remote port %8ph is not coming back"): on a
    # point-to-point (N2N) link the driver gave up logging in to the remote port after its
    # chip reset, so the port and its LUNs are gone though the link is up (5.x-6.x)
    sig(
        "fc_link_down",
        r"LOOP DOWN detected \(|Remote port (?:[0-9a-fA-F]{2}[ :]){7}[0-9a-fA-F]{2} is not "
        r"coming back",
        ("LOOP", "coming"),
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
            Format(
                "Remote port %8ph is not coming back",
                "drivers/scsi/qla2xxx/qla_init.c",
                "5.4-6.18",
                "qla2xxx [0000:02:00.0]-705d:12: ",
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
    # net/ceph/messenger.c con_fault: pr_warn("%s%lld %s %s\n", ENTITY_NAME(con->peer_name),
    # ceph_pr_addr(…), con->error_msg) (4.4-6.18; 5.11+ addresses carry the protocol, "(1)"
    # msgr1, "(2)" msgr2), the error_msg of a lost connection: "socket closed (con state %s)"
    # (con_sock_closed's CASE(x), every state: OPEN, CONNECTING, V1_BANNER, …), "socket error
    # on read", "socket error on write" (con_work/ceph_con_workfn), "connect error"
    # (messenger.c to 5.10, messenger_v1.c/_v2.c 5.11+), after ceph_tcp_connect's pr_err
    # "connect %s error %d"; mon_client.c reopen_session/mon_fault: pr_info("mon%d %s session
    # lost, hunting for new mon") (4.4-6.18); fs/ceph/mds_client.c: pr_info("mds%d hung"),
    # pr_warn("mds%d closed our session") (4.4-6.18; 6.6+ pr_*_client, "[<fsid> <id>]: " first)
    sig(
        "ceph_connection_error",
        r"\b(?:mon|osd|mds)\d+ \S+ (?:socket closed \(con state \w+\)|socket error on "
        r"(?:read|write)|connect error|session lost, hunting for new mon)"
        r"|libceph: connect \S+ error -?\d+"
        r"|ceph: (?:\[\S+ \d+\]: )?mds\d+ (?:hung|closed our session)$",
        ("libceph", "ceph"),  # the pr_fmt: "socket", "closed", "connect" are common words
        Severity.ERROR,
        STORAGE_NET,
        "The kernel's Ceph client lost its connection to a monitor, OSD or MDS of the cluster: "
        "the RBD disks and CephFS mounts it serves stall until it reconnects.",
        "Check the network to the Ceph cluster and the daemons named (ceph -s, ceph osd "
        "tree); tasks blocked on its disks or mounts wait until the client reconnects, and "
        "a shutdown hangs while such a mount is still up.",
        46,
        formats=(
            Format(
                "%s%lld %s %s",
                _CEPH_CON,
                "4.4-6.18",
                _LIBCEPH,
                args=("osd", 10, "9.125.70.42:6801", "socket closed (con state OPEN)"),
            ),
            Format(
                "%s%lld %s %s",
                _CEPH_CON,
                "4.4-6.18",
                _LIBCEPH,
                args=("mon", 2, "(1)172.31.52.146:6789", "connect error"),
            ),
            Format(
                "%s%lld %s %s",
                _CEPH_CON,
                "4.4-6.18",
                _LIBCEPH,
                args=("osd", 3, "(2)10.0.0.3:6802", "socket error on write"),
            ),
            Format(
                "connect %s error %d",
                _CEPH_CON,
                "4.4-6.18",
                _LIBCEPH,
                args=("(1)172.31.52.146:6789", -111),
            ),
            Format(
                "mon%d %s session lost, hunting for new mon",
                "net/ceph/mon_client.c",
                "4.4-6.18",
                _LIBCEPH,
                args=(1, "10.3.38.219:6790"),
            ),
            Format("mds%d hung", "fs/ceph/mds_client.c", "4.4-6.1", "ceph: ", args=(0,)),
            Format(
                "mds%d closed our session",
                "fs/ceph/mds_client.c",
                "4.4-6.18",
                "ceph: [4f1e2d3c-0000-4000-8000-00000000cafe 4242]: ",
                args=(0,),
            ),
        ),
    ),
    # fs/cifs/connect.c (fs/smb/client/ from 6.4) server_unresponsive: cifs_dbg(VFS, "Server
    # %s has not responded in %lu seconds. Reconnecting...") (4.4-4.19: "CIFS VFS: " before
    # it), cifs_server_dbg(VFS, "has not responded in %lu seconds. Reconnecting...") (5.x+:
    # pr_fmt "CIFS: ", then "VFS: \\\\<server> ")
    sig(
        "cifs_server_not_responding",
        r"(?:Server \S+|\\\\\S+) has not responded in \d+ seconds\. Reconnecting",
        ("responded",),
        Severity.ERROR,
        STORAGE_NET,
        "An SMB/CIFS server stopped answering: the client drops the session and reconnects, "
        "and the processes using its mounts wait or get I/O errors meanwhile.",
        "Check the server and the network to it (and the mount's echo_interval); tasks "
        "blocked on the mount go on once the session is back.",
        46,
        formats=(
            Format(
                "has not responded in %lu seconds. Reconnecting...",
                "fs/smb/client/connect.c",
                "6.1-6.18",
                "CIFS: VFS: \\\\nas01 ",
                args=(180,),
            ),
            Format(
                "Server %s has not responded in %lu seconds. Reconnecting...",
                "fs/cifs/connect.c",
                "4.4-4.19",
                "CIFS VFS: ",
                args=("nas01", 120),
            ),
        ),
    ),
    # drivers/scsi/lpfc/lpfc_hbadisc.c lpfc_mbx_cmpl_read_topology (lpfc_mbx_cmpl_read_la
    # before 3.x): lpfc_printf_log(KERN_ERR, LOG_LINK_EVENT, "1305 Link Down Event x%x
    # received Data: x%x x%x x%x x%x x%x") (4.4-6.18; "%d:1305 …" with the board number in
    # 2.6), printed after dev_printk's "lpfc <bus id>: " and "<board>:" — an Emulex FC HBA
    # lost its link; drivers/scsi/scsi_transport_fc.c fc_timeout_deleted_rport: dev_printk
    # (KERN_ERR) "blocked FC remote port time out: removing target and saving binding",
    # "… removing rport%s" (2.6.x-6.18): a remote port stayed gone past dev_loss_tmo and its
    # LUNs are removed
    sig(
        "fc_link_down",
        r"\blpfc \S+: (?:\d+:)*(?:\(\d+\):)?1305 Link Down Event x[0-9a-f]+ received"
        r"|blocked FC remote port time out: removing",
        ("Down", "blocked"),
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
                "1305 Link Down Event x%x received Data: x%x x%x x%x x%x x%x",
                "drivers/scsi/lpfc/lpfc_hbadisc.c",
                "4.4-6.18",
                "lpfc 0000:05:00.0: 0:",
                args=(0x2, 0x2, 0x20, 0x800110, 0, 0),
            ),
            Format(
                "blocked FC remote port time out: removing rport%s",
                "drivers/scsi/scsi_transport_fc.c",
                "4.4-6.18",
                " rport-1:0-0: ",
                args=(" and starget",),
            ),
        ),
    ),
    # open-iscsi usr/initiator.c session_conn_error / iscsi_session_conn_error: iscsid's
    # log_warning("Kernel reported iSCSI connection %d:%d error (%d - %s) state (%d)") (2.0.87x;
    # "… error (%d) state (%d)" before), its syslog line for the kernel's conn error: a paste
    # of /var/log/messages may hold it and not the kernel's "detected conn error"
    sig(
        "iscsi_connection_error",
        r"^Kernel reported iSCSI connection \d+:\d+ error \(\d+",
        ("iSCSI",),
        Severity.ERROR,
        STORAGE_NET,
        "An iSCSI connection to a storage target failed (no answer to the initiator's ping, or "
        "the session was not restored in time): the disks of that target stop answering.",
        "Check the storage network (NIC link, switch, MTU, the target's state); the session's "
        "replacement_timeout (iscsid.conf) decides when its disks go offline.",
        46,
        idents=("iscsid",),
        formats=(
            Format(
                "Kernel reported iSCSI connection %d:%d error (%d - %s) state (%d)",
                "open-iscsi:usr/initiator.c",
                "open-iscsi 2.0.874-2.1",
                program="iscsid",
                args=(1, 0, 1020, "ISCSI_ERR_TCP_CONN_CLOSE: TCP connection closed", 3),
            ),
        ),
    ),
    # DRBD's replication link to a peer failed: the peer stopped answering the keep-alive
    # (drbd_receiver.c drbd_ack_receiver / 8.3's drbd_asender: "PingAck did not arrive in
    # time."), closed the meta socket ("meta connection shut down by peer."), or the data
    # socket read 0 bytes without an orderly disconnect ("sock was shut down by peer"; since
    # 8.4 (kernel 3.8) it is not printed after the peer's P_DISCONNECT), 8.0-9.2; and the
    # connection's state change into a failure state, drbd_state.c print_state_change
    # "conn( %s -> %s ) " with NetworkFailure, BrokenPipe, ProtocolError or DRBD 9's
    # Timeout (drbd_strings.c). The prefix is the device's dev_printk "block drbd0: " (8.3),
    # the connection's "d-con r0: " (8.4 on 3.8-3.x) or "drbd r0: " (4.x+), DRBD 9's
    # "drbd r0 <peer>: ". The state changes out of a failure or into Disconnecting,
    # StandAlone, TearDown (an administrator's disconnect) and "Connection closed" are
    # routine and stay untagged; I/O frozen by susp-io behind a lost link follows from it
    sig(
        "drbd_network_failure",
        r"^(?:block drbd\d+|d-con \S+|drbd \S+(?: \S+)?): (?:PingAck did not arrive in time"
        r"|meta connection shut down by peer|sock was shut down by peer"
        r"|(?:.*\) )?conn\( \w+ -> (?:NetworkFailure|BrokenPipe|ProtocolError|Timeout) \))",
        ("PingAck", "meta", "sock", "NetworkFailure", "BrokenPipe", "ProtocolError", "Timeout"),
        Severity.ERROR,
        STORAGE_NET,
        "A DRBD replication link to a peer failed (the peer stopped answering the keep-alive "
        "or its connection dropped): the resource runs without its peer, unreplicated, and "
        "I/O may be suspended until it reconnects.",
        "Check the replication network between the nodes (NIC link, bonding, switch, MTU) and "
        "the peer's state (drbdadm status); raise ping-timeout only where the link is merely "
        "slow; after a split brain, resolve it as the DRBD user's guide says.",
        46,
        formats=(
            Format(
                "PingAck did not arrive in time.",
                "drivers/block/drbd/drbd_receiver.c",
                "4.4-6.18",
                "drbd r0: ",
            ),
            Format(
                "PingAck did not arrive in time.",
                "drbd:drbd/drbd_receiver.c",
                "drbd 9.0-9.2",
                "drbd r0 nodeA: ",
            ),
            Format(
                "PingAck did not arrive in time.",
                "drivers/block/drbd/drbd_receiver.c",
                "2.6.33-3.7 (drbd 8.3)",
                "block drbd0: ",
            ),
            Format(
                "meta connection shut down by peer.",
                "drivers/block/drbd/drbd_receiver.c",
                "4.4-6.18",
                "drbd r0: ",
            ),
            Format(
                "meta connection shut down by peer.",
                "drbd:drbd/drbd_receiver.c",
                "drbd 9.0-9.2",
                "drbd r0 nodeA: ",
            ),
            Format(
                "sock was shut down by peer",
                "drivers/block/drbd/drbd_receiver.c",
                "4.4-6.18",
                "drbd r0: ",
            ),
            Format(
                "conn( %s -> %s ) ",
                "drivers/block/drbd/drbd_state.c",
                "4.4-6.18",
                "drbd r0: ",
                args=("Connected", "NetworkFailure"),
            ),
            Format(
                "conn( %s -> %s ) ",
                "drivers/block/drbd/drbd_state.c",
                "4.4-6.18",
                "block drbd0: role( Primary -> Secondary ) ",
                args=("WFReportParams", "BrokenPipe"),
            ),
            Format(
                "conn( %s -> %s ) peer( %s -> %s )",
                "drbd:drbd/drbd_state.c",
                "drbd 9.0-9.2",
                "drbd r0 nodeA: ",
                args=("Connected", "Timeout", "Secondary", "Unknown"),
            ),
        ),
    ),
    # A block device backed by a network server failing its requests. drivers/block/rbd.c
    # rbd_warn (printk "%s: %s: %pV" of RBD_DRV_NAME and the disk: "rbd: rbd0: ") of an
    # object request that ended in error, "%s at objno %llu %llu~%llu result %d" (5.4-6.18;
    # "… result %d xferred %llu" in 4.19), its I/O error to the block layer; drivers/block/
    # nbd.c nbd_xmit_timeout dev_err of the disk ("block nbd0: ") "Connection timed out" (the
    # request fails; 4.4's "Connection timed out, shutting down connection"), and recv_work's
    # nbd_read_stat "Receive control failed (result %d)" (the server's socket broke). The
    # multi-connection "Connection timed out, retrying (%d/%d alive)" is a retry, not a failure
    sig(
        "disk_io_error",
        r"^rbd: rbd\d+: (?:read|write|discard|zeroout|compare-and-write) at objno "
        r"\d+ \d+~\d+ result -\d+"
        r"|^block nbd\d+: (?:Connection timed out(?:, shutting down connection)?$"
        r"|Receive control failed \(result -?\d+\))",
        ("objno", "Connection", "Receive"),
        Severity.ERROR,
        "storage",
        "A block device failed a read or write.",
        "For rbd, check the Ceph cluster (ceph -s, the OSDs of that pool) and the client's "
        "network to it; for nbd, the nbd server and the network to it.",
        54,
        device_kind=DeviceKind.DISK,
        formats=(
            Format(
                "%s at objno %llu %llu~%llu result %d",
                "drivers/block/rbd.c",
                "5.4-6.18",
                "rbd: rbd0: ",
                args=("write", 1234, 0, 4096, -108),
            ),
            Format(
                "%s at objno %llu %llu~%llu result %d xferred %llu",
                "drivers/block/rbd.c",
                "4.19",
                "rbd: rbd0: ",
                args=("read", 77, 0, 65536, -5, 0),
            ),
            Format("Connection timed out", "drivers/block/nbd.c", "4.19-6.18", "block nbd0: "),
            Format(
                "Connection timed out, shutting down connection",
                "drivers/block/nbd.c",
                "4.4",
                "block nbd0: ",
            ),
            Format(
                "Receive control failed (result %d)",
                "drivers/block/nbd.c",
                "4.4-6.18",
                "block nbd0: ",
                args=(-104,),
            ),
        ),
    ),
)
