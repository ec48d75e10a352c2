#!/usr/bin/env bash
# Debian packages of a tournament, for the tests and the board benchmark: the Mosquitto broker
# (the tests start their own on 127.0.0.1 and stop it) and headless Chromium with its driver
# (the tests open the board's page in it). A hall installs mosquitto the same way.
set -euo pipefail
need=()
[ -x /usr/sbin/mosquitto ] || command -v mosquitto >/dev/null || need+=(mosquitto)
command -v chromium >/dev/null || need+=(chromium)
command -v chromedriver >/dev/null || need+=(chromium-driver)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
echo "broker and browser installed: $(command -v mosquitto || echo /usr/sbin/mosquitto), $(command -v chromium)"
