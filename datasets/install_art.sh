#!/usr/bin/env bash
# Install the card art the generator needs (nothing here is committed to the repo):
#  Debian gnome-cards-data (aisleriot decks), kdegames-card-data-kf5 (KDE decks), librsvg2-bin,
#  gimp-data (photographic wood, cloth and stone patterns for table textures),
#  npm cardsJS (LGPL) and @heruka_urgyen/react-playing-cards (CC0) unpacked under .art/npm;
#  and typefaces for the corner indices drawn by hakam.training.lettering (fonts-liberation,
#  fonts-freefont-ttf, fonts-urw-base35, fonts-texgyre; fonts-dejavu-core draws the Arabic-index
#  design); and, for the window's check under a
#  real window manager (tests/gui/test_window_manager.py), xvfb, openbox and the xcb libraries
#  Qt's xcb platform needs (libxcb-cursor0, -icccm4, -keysyms1 and the rest below).
set -euo pipefail
cd "$(dirname "$0")/.."
ART="${HAKAM_ART_DIR:-.art}"
need=()
command -v rsvg-convert >/dev/null || need+=(librsvg2-bin)
[ -d /usr/share/aisleriot/cards ] || need+=(gnome-cards-data)
[ -d /usr/share/carddecks/svg-standard ] || need+=(kdegames-card-data-kf5)
[ -d /usr/share/gimp/2.0/patterns ] || need+=(gimp-data)
[ -d /usr/share/fonts/truetype/liberation ] || need+=(fonts-liberation)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf ] || need+=(fonts-dejavu-core)
[ -d /usr/share/fonts/truetype/freefont ] || need+=(fonts-freefont-ttf)
[ -d /usr/share/fonts/opentype/urw-base35 ] || need+=(fonts-urw-base35)
[ -d /usr/share/texmf/fonts/opentype/public/tex-gyre ] || need+=(fonts-texgyre)
command -v xvfb-run >/dev/null || need+=(xvfb xauth)
command -v openbox >/dev/null || need+=(openbox)
for pkg in libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 \
    libxcb-shape0 libxcb-randr0 libxcb-xkb1 libxcb-sync1 libxcb-xfixes0 libxkbcommon-x11-0 \
    libx11-xcb1; do  # what Qt's xcb platform plugin loads (ldd libqxcb.so)
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null)" = installed ] || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
mkdir -p "$ART/npm"
if [ ! -d "$ART/npm/cardsjs" ] || [ ! -d "$ART/npm/kennard" ]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent cardsJS@1.1.1 @heruka_urgyen/react-playing-cards@0.5.0 >/dev/null)
  rm -rf "$ART/npm/cardsjs" "$ART/npm/kennard"
  mkdir -p "$tmp/a" "$tmp/b"
  tar xzf "$tmp"/cardsJS-1.1.1.tgz -C "$tmp/a"
  tar xzf "$tmp"/heruka_urgyen-react-playing-cards-0.5.0.tgz -C "$tmp/b"
  mv "$tmp/a/package/cards" "$ART/npm/cardsjs"
  mkdir -p "$ART/npm/kennard"
  cp "$tmp"/b/package/src/images/2color/*.svg "$tmp/b/package/src/images/back.svg" "$ART/npm/kennard/"
  rm -rf "$tmp"
fi
echo "card art installed under $ART"
