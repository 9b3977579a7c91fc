"""Lustre client and server signatures: a peer LNet cannot reach, a service thread that stops.

Lustre (lustre-release, out of tree; drivers/staging/lustre in 3.12-4.17) prints through
libcfs: CERROR/CWARN as "LustreError: " or "Lustre: " (LNet's own "LNetError: "/"LNet: "),
then "<pid>:<cpu>:(<file>:<line>:<function>()) " and the message; LCONSOLE_* the same
prefixes with a console message code ("11-0: ") in place of the location; DEBUG_REQ adds
"@@@ " and the request's fields after the message. A client whose RPCs to a server time out,
fail with a network error, or whose LND times out transmits to a NID has lost that server:
its I/O waits in recovery (the box runs, the file system hangs). A server's service thread
that its watchdog finds inactive is Lustre's own hung-thread report, not the kernel's
hung_task; "The thread might be hung, or it might only be slow".
"""

from __future__ import annotations

from kmsgd.catalogue.base import Format, Severity, Signature, sig

LUSTRE = "storage.net"
_WHERE = "1160:0:(client.c:2114:ptlrpc_expire_one_request()) "
_REQ = (
    "  req@ffff88005ef8c000 x1580882981821232/t0(0) o250->MGC10.14.81.0@tcp@10.14.81.0@tcp:"
    "26/25 lens 520/544 e 0 to 1 dl 1507651425 ref 1 fl Rpc:XN/0/ffffffff rc 0/-1"
)

LUSTRE_SIGNATURES: tuple[Signature, ...] = (
    # lustre/ptlrpc/client.c ptlrpc_expire_one_request: DEBUG_REQ(D_WARNING, req, "Request
    # sent has %s: [sent %lld/real %lld]", "failed due to network error" / "timed out for sent
    # delay" / "timed out for slow reply") (2.x; staging 3.12-4.17 the same); ptlrpc_check_status
    # LCONSOLE_ERROR_MSG(0x011, "%s: operation %s to node %s failed: rc = %d") where the
    # status is a lost connection (-ENOTCONN 107: the server no longer knows the client,
    # -ETIMEDOUT, -EHOSTUNREACH, -ECONNRESET; a -ENOSPC or -EDQUOT reply is no network error);
    # lustre/ptlrpc/import.c ptlrpc_set_import_discon LCONSOLE "%s: Connection to %.*s (at %s)
    # was lost; in progress operations using this service will wait for recovery to complete"
    # (and "… will fail", 0x166); lnet/klnds/o2iblnd/o2iblnd_cb.c kiblnd_check_conns CERROR
    # "Timed out RDMA with %s (%lld): c: %u, oc: %u, rc: %u" and CNETERR "Timed out tx for
    # %s: %lld seconds" (2.10-2.12; the latter read on its public wording, no stored copy)
    sig(
        "lustre_network_error",
        r"^(?:Lustre|LustreError|LNet|LNetError): (?:\d+:\d+:\([\w.]+:\d+:\w+\(\)\) )?"
        r"(?:@@@ Request sent has (?:failed due to network error|timed out for (?:slow reply"
        r"|sent delay)): |Timed out (?:tx for \S+: \d+ seconds|RDMA with \S+ \(\d+\))"
        r"|(?:[\da-f]+-[\da-f]+: )?\S+: (?:operation \w+ to node \S+ failed: rc = "
        r"-(?:107|110|113|104|103)\b|Connection to \S+ \(at \S+\) was lost;))",
        ("Lustre", "LustreError", "LNet", "LNetError"),
        Severity.ERROR,
        LUSTRE,
        "A Lustre client or server lost its connection to a peer: RPCs to it time out or fail "
        "with a network error, or LNet's transmits to its NID time out; I/O on that target "
        "waits for recovery (the file system hangs while the box runs).",
        "Check the named NID's server and the fabric to it (lctl ping <nid>, the IB or TCP "
        "link, the server's own log); the client recovers when the server answers again.",
        46,
        formats=(
            Format(
                "Request sent has %s: [sent %lld/real %lld]",
                "lustre-release: lustre/ptlrpc/client.c",
                "2.10-2.15",
                "Lustre: " + _WHERE + "@@@ ",
                args=("timed out for slow reply", 1507651404, 1507651404),
            ),
            Format(
                "Request sent has %s: [sent %lld/real %lld]",
                "lustre-release: lustre/ptlrpc/client.c",
                "2.10-2.15",
                "Lustre: " + _WHERE + "@@@ ",
                args=("failed due to network error", 1508144508, 1508144518),
            ),
            Format(
                "%s: operation %s to node %s failed: rc = %d",
                "lustre-release: lustre/ptlrpc/client.c",
                "2.10-2.15",
                "LustreError: 11-0: ",
                args=("jmain01-MDT0000-mdc-ffff88203810d800", "obd_ping", "10.0.0.8@o2ib", -107),
            ),
            Format(
                "%s: Connection to %.*s (at %s) was lost; in progress operations using this "
                "service will wait for recovery to complete",
                "lustre-release: lustre/ptlrpc/import.c",
                "2.10-2.15",
                "Lustre: ",
                args=("lustre-OST0000-osc-ffff8800", 14, "lustre-OST0000", "10.0.0.5@tcp"),
            ),
            Format(
                "Timed out RDMA with %s (%lld): c: %u, oc: %u, rc: %u",
                "lustre-release: lnet/klnds/o2iblnd/o2iblnd_cb.c",
                "2.10-2.15",
                "LNetError: 2431:0:(o2iblnd_cb.c:3238:kiblnd_check_conns()) ",
                args=("10.0.0.7@o2ib", 52, 0, 0, 0),
            ),
            Format(
                "Timed out tx for %s: %lld seconds",
                "lustre-release: lnet/klnds/o2iblnd/o2iblnd_cb.c",
                "2.10",
                "LNet: 2431:0:(o2iblnd_cb.c:3174:kiblnd_check_conns()) ",
                args=("10.0.0.7@o2ib", 403055),
            ),
        ),
    ),
    # libcfs/libcfs/watchdog.c lcw_cb (1.8-2.12) LCONSOLE_WARN "Service thread pid %u was
    # inactive for %lu.%.02lus. The thread might be hung, or it might only be slow and will
    # resume later. Dumping the stack trace for debugging purposes:" (and "… Watchdog stack
    # traces are limited to 3 per %d seconds, skipping this one."); lustre/ptlrpc/service.c
    # ptlrpc_watchdog_fire (2.13+) "%s: service thread pid %u was inactive for %lu.%03u
    # seconds. …" with the thread's name. Warning: the thread may only be slow
    sig(
        "lustre_service_thread_inactive",
        r"^(?:Lustre|LNet): (?:\S+: )?[Ss]ervice thread pid \d+ was inactive for [\d.]+ ?s",
        ("Lustre", "LNet"),
        Severity.WARNING,
        LUSTRE,
        "A Lustre server's service thread did not finish a request within the watchdog's "
        "limit: it is stuck (on a lock, the back-end disk, a peer) or the server is "
        "overloaded; clients wait for its reply.",
        "Read the stack dumped after it (what the thread waits on) and the errors before it "
        "(a peer unreachable, a slow target disk).",
        76,
        formats=(
            Format(
                "Service thread pid %u was inactive for %lu.%.02lus. The thread might be hung, "
                "or it might only be slow and will resume later. Dumping the stack trace for "
                "debugging purposes:",
                "lustre-release: libcfs/libcfs/watchdog.c",
                "2.10-2.12",
                "LNet: ",
                args=(25305, 200, 9),
            ),
            Format(
                "%s: service thread pid %u was inactive for %lu.%03u seconds. The thread might "
                "be hung, or it might only be slow and will resume later. Dumping the stack "
                "trace for debugging purposes:",
                "lustre-release: lustre/ptlrpc/service.c",
                "2.13-2.15",
                "Lustre: ",
                args=("ll_ost_io04_080", 55122, 80, 284),
            ),
        ),
    ),
)
