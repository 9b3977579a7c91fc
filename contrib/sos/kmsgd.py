# sos report plugin for kmsgd (freeze forensics for Linux GPU boxes). MIT, like kmsgd.
#
# The Debian package installs it as sos/report/plugins/kmsgd.py, the one directory sos loads
# plugins from. It works with sos 4.0 (Debian 12's sosreport) and with current sos (Debian 13):
# the two differ in how a plugin declares options, nothing else used here.
#
#   sos report -o kmsgd                      # post-mortems, boots, self-check, configuration
#   sos report -o kmsgd -k kmsgd.ring=on     # and the ring file itself (up to its size, 64 MiB)

import tomllib

from sos.report.plugins import DebianPlugin, IndependentPlugin, Plugin, UbuntuPlugin

try:
    from sos.report.plugins import PluginOpt
except ImportError:  # sos < 4.3: options are (name, description, speed, default) tuples
    PluginOpt = None

CONFIG = "/etc/kmsgd/kmsgd.toml"
STATE_DIR = "/var/lib/kmsgd"
RING_DESC = "collect the ring file too (raw kernel log and sensor records of many boots)"
# Where kmsgd writes its node_exporter textfile: its old default, and Debian's node_exporter's.
TEXTFILES = (
    "/var/lib/node_exporter/textfile_collector/kmsgd.prom",
    "/var/lib/prometheus/node-exporter/kmsgd.prom",
    "/var/lib/prometheus/node-exporter/kmsgd-last-boot.prom",
)


# IndependentPlugin: kmsgd runs on any Linux. DebianPlugin and UbuntuPlugin too, because sos 4.0's
# Debian policy loads only plugins tagged for Debian.
class Kmsgd(Plugin, IndependentPlugin, DebianPlugin, UbuntuPlugin):
    """kmsgd: how earlier boots ended (post-mortems), the recorder's health and settings"""

    short_desc = "kmsgd freeze-forensics recorder"
    plugin_name = "kmsgd"
    profiles = ("system", "debug")
    packages = ("kmsgd",)
    commands = ("kmsgd",)
    services = ("kmsgd",)

    if PluginOpt is None:
        option_list = [("ring", RING_DESC, "slow", False)]
    else:
        option_list = [PluginOpt("ring", default=False, desc=RING_DESC)]

    def _settings(self):
        """The [kmsgd] table of the configuration file, {} when absent or unreadable: a broken
        file is collected as it is, and `kmsgd check` says what is wrong with it."""
        join = getattr(self, "path_join", None) or self.join_sysroot
        try:
            with open(join(CONFIG), "rb") as f:
                table = tomllib.load(f).get("kmsgd", {})
        except (OSError, ValueError):
            return {}
        return table if isinstance(table, dict) else {}

    def setup(self):
        settings = self._settings()
        state_dir = str(settings.get("state_dir") or STATE_DIR)
        reports = str(settings.get("report_dir") or f"{state_dir}/reports")

        # The post-mortem of the previous boot, as a ticket wants it and as a tool reads it.
        self.add_cmd_output("kmsgd last-boot --format md", suggest_filename="last-boot.md")
        self.add_cmd_output("kmsgd last-boot --format json", suggest_filename="last-boot.json")
        self.add_cmd_output("kmsgd boots", suggest_filename="boots")
        self.add_cmd_output("kmsgd check", suggest_filename="check")
        self.add_cmd_output("kmsgd sysctl check", suggest_filename="sysctl-check")
        self.add_cmd_output("kmsgd --version", suggest_filename="version")

        self.add_copy_spec(["/etc/kmsgd/", "/usr/lib/sysctl.d/60-kmsgd.conf", *TEXTFILES])
        # Saved post-mortems of earlier boots (JSON and Markdown, 50 kept by default).
        self.add_copy_spec(reports)
        if settings.get("textfile"):
            self.add_copy_spec(str(settings["textfile"]))

        self.add_service_status(["kmsgd", "kmsgd-report"])
        self.add_journal(units=["kmsgd", "kmsgd-report"])

        if self.get_option("ring"):
            # The whole file or nothing: a ring cut to sos's log size is unreadable (sizelimit
            # 0 means no limit).
            self.add_copy_spec(str(settings.get("ring") or f"{state_dir}/ring"), sizelimit=0)


# vim: set et ts=4 sw=4 :
