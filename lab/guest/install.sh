#!/bin/sh
# Installs kmsgd from the payload disk as an operator would: the .deb when `make deb` built one,
# else the package copied into dist-packages with the project's units (or a lab-only unit).
set -eu
P=/mnt/payload
how=copy
if ls "$P"/debs/*.deb >/dev/null 2>&1; then
    dpkg -i "$P"/debs/*.deb
    how=deb
else
    rm -rf /usr/lib/python3/dist-packages/kmsgd
    cp -r "$P/kmsgd" /usr/lib/python3/dist-packages/kmsgd
    printf '#!/usr/bin/python3\nimport sys\nfrom kmsgd.cli import main\nsys.exit(main())\n' >/usr/bin/kmsgd
    chmod 755 /usr/bin/kmsgd
    if [ -f "$P/units/kmsgd.service" ]; then
        cp "$P"/units/*.service /lib/systemd/system/
        how=copy+units
    else
        cp "$P/lab/kmsgd-lab.service" /lib/systemd/system/kmsgd.service
        how=copy+lab-unit
    fi
    if ls "$P"/sysctl.d/*.conf >/dev/null 2>&1; then
        mkdir -p /usr/lib/sysctl.d && cp "$P"/sysctl.d/*.conf /usr/lib/sysctl.d/
    fi
fi
systemctl daemon-reload
for unit in kmsgd.service kmsgd-report.service; do
    if systemctl cat "$unit" >/dev/null 2>&1; then
        systemctl enable "$unit" 2>&1
    fi
done
systemctl start kmsgd.service
echo "installed-via=$how"
