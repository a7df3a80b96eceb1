# SPDX-License-Identifier: GPL-2.0
# Shared helpers for build.sh: paths, logging, the pristine base tree.
# Sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HARNESS=$TOP/harness
CACHE=${BPFILTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpfilter}
# The guest sees the host's / but mounts tmpfs on these: the cache, which
# holds what the guest runs, must not be below them.
case $CACHE/ in
/tmp/*|/run/*|/var/tmp/*|/var/lib/*|/var/log/*|/var/cache/*|/mnt/*)
	echo "build.sh: BPFILTER_CACHE=$CACHE is hidden in the guest; choose another place" >&2
	exit 1 ;;
esac
# The bases the series is made for. mainline: the newest mainline kernel
# that Debian's archive serves, the series in series and patches/, whose
# final state the mirror holds. 6.12: the LTS backport in stable-6.12/.
# BPFILTER_BASE picks one (./build.sh test --base 6.12 sets it).
BASE=${BPFILTER_BASE:-mainline}
case $BASE in
mainline)
	BASE_PKG=linux-source-7.3
	BASE_VERSION=7.3~rc7-1~exp1
	SERIES_DIR=$TOP ;;
6.12)
	BASE_PKG=linux-source-6.12
	BASE_VERSION=6.12.118-1~deb12u1
	SERIES_DIR=$TOP/stable-6.12 ;;
*)
	echo "build.sh: BPFILTER_BASE=$BASE: mainline or 6.12" >&2
	exit 2 ;;
esac
# Or any kernel git tree at a tag, for people who have one: the series
# of BPFILTER_BASE applied to BPFILTER_BASE_TAG of BPFILTER_BASE_TREE.
BASE_TREE=${BPFILTER_BASE_TREE:-}
BASE_TAG=${BPFILTER_BASE_TAG:-}
BCACHE=$CACHE/$BASE
[ -z "$BASE_TREE" ] || BCACHE=$CACHE/tree-${BASE_TAG//\//_}
SRC=$BCACHE/src			# work tree the kernel is built from (series applied)
BASE_GIT=$SRC/.git		# holds the base commit and every series commit
AMTREE=$BCACHE/am		# scratch work tree for git am checks
WORK=${BPFILTER_WORK:-$BCACHE/work}	# developer tree (./build.sh setup)
WORK_BRANCH=${BPFILTER_BRANCH:-bpfilter}	# its branch
OUT=$BCACHE/out			# O= build directory and installed artifacts
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
# Paths below the cache taken relative to the build directory, so that the
# am, bisect and build trees of a base share their compilations.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$CACHE} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
BASE_BRANCH=base

# Fixed identity and dates make the base commit hash reproducible, so the
# patches' base-commit: trailer names the same commit on every machine.
export GIT_COMMITTER_NAME="bpfilter build" GIT_COMMITTER_EMAIL="build@bpfilter.invalid"
GIT_FIXED_DATE="2000-01-01T00:00:00Z"

# Debian's tools first: the kernel's scripts (spdxcheck, kernel-doc) and the
# tests need Debian's python3 and its packages, not a user's own.
export PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH

JOBS=${JOBS:-$(nproc)}
T0=$(date +%s)

log() { printf '%s [%4ss] %s\n' "==>" "$(($(date +%s) - T0))" "$*" >&2; }
die() { printf 'build.sh: error: %s\n' "$*" >&2; exit 1; }

# stage NAME CMD...: run a long stage with a progress line and its duration.
stage() {
	local name=$1 t=$(date +%s) rc
	shift
	log "$name ..."
	"$@"
	rc=$?
	log "$name done in $(($(date +%s) - t))s (rc=$rc)"
	return $rc
}

git_base() { git --git-dir="$BASE_GIT" "$@"; }

# ensure_base: unpack the base kernel once into $SRC, a repository with
# one commit on branch "base"; later runs reuse it. The other trees are its
# worktrees.
ensure_base() {
	git_base rev-parse -q --verify "refs/heads/$BASE_BRANCH" >/dev/null 2>&1 && return 0
	local deb="" what
	if [ -n "$BASE_TREE" ]; then
		[ -n "$BASE_TAG" ] || die "BPFILTER_BASE_TREE needs BPFILTER_BASE_TAG"
		git -C "$BASE_TREE" rev-parse -q --verify "$BASE_TAG^{commit}" >/dev/null ||
			die "$BASE_TREE has no $BASE_TAG"
		what="$BASE_TAG of $BASE_TREE"
	else
		deb=$(fetch_base_pkg) || die "cannot fetch $BASE_PKG"
		# The package may be another than the pinned one: see fetch_base_pkg.
		BASE_PKG=$(dpkg-deb -f "$deb" Package)
		what="$BASE_PKG $(dpkg-deb -f "$deb" Version)"
	fi
	rm -rf "$SRC" && mkdir -p "$SRC" || die "cannot create $SRC"
	if [ -n "$deb" ]; then
		stage "unpack $what" sh -c 'dpkg-deb --fsys-tarfile "$1" |
			tar -xOf - "./usr/src/$2.tar.xz" |
			tar -C "$3" -xJf - --strip-components=1' sh "$deb" "$BASE_PKG" "$SRC"
	else
		stage "export $what" sh -c 'git -C "$1" archive --format=tar "$2" |
			tar -C "$3" -xf -' sh "$BASE_TREE" "$BASE_TAG" "$SRC"
	fi || { rm -rf "$SRC"; die "unpack failed"; }
	(
		cd "$SRC" || exit 1
		export GIT_AUTHOR_NAME=$GIT_COMMITTER_NAME GIT_AUTHOR_EMAIL=$GIT_COMMITTER_EMAIL
		export GIT_AUTHOR_DATE=$GIT_FIXED_DATE GIT_COMMITTER_DATE=$GIT_FIXED_DATE
		git init -q -b "$BASE_BRANCH" . &&
		git config core.bigFileThreshold 16m && git config gc.auto 0 &&
		# Debian's .gitignore ignores the top level; add everything.
		stage "commit base tree" git add -A -f . &&
		git commit -q -m "${deb:+Debian }$what" &&
		git checkout -q --detach
	) || { rm -rf "$SRC"; die "cannot commit the base tree"; }
	log "base commit $(git_base rev-parse "$BASE_BRANCH")"
}

# Debian's archive through an apt configuration of our own: the suites
# that serve mainline and the LTS kernels, lists and downloads in the
# cache, the machine's sources and package state untouched.
APT_DIR=$CACHE/apt
apt_private() {
	APT_CONFIG=$APT_DIR/apt.conf apt-get -q -o APT::Sandbox::User=root "$@"
}
apt_cache_private() { APT_CONFIG=$APT_DIR/apt.conf apt-cache "$@"; }

apt_setup() {
	mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/archives/partial" || return 1
	local key=/usr/share/keyrings/debian-archive-keyring.gpg
	cat >"$APT_DIR/sources.list" <<-EOF
	deb [signed-by=$key] http://deb.debian.org/debian experimental main
	deb [signed-by=$key] http://deb.debian.org/debian sid main
	deb [signed-by=$key] http://deb.debian.org/debian-security bookworm-security main
	EOF
	cat >"$APT_DIR/apt.conf" <<-EOF
	Dir::Etc::sourcelist "$APT_DIR/sources.list";
	Dir::Etc::sourceparts "-";
	Dir::State::Lists "$APT_DIR/lists";
	Dir::State::status "/dev/null";
	Dir::Cache "$APT_DIR";
	Dir::Cache::archives "$APT_DIR/archives";
	APT::Get::List-Cleanup "0";
	EOF
}

# base_versions: the versions of $BASE_PKG the archive serves, newest
# first; the lists are refreshed at most once a day.
base_versions() {
	local stamp=$APT_DIR/updated
	if [ ! -r "$APT_DIR/apt.conf" ] || [ -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
		apt_setup && apt_private update >/dev/null 2>&1 && touch "$stamp" ||
			log "warning: apt-get update of the base's suites failed"
	fi
	# madison pads its columns: "  pkg |  version | source".
	apt_cache_private madison "$BASE_PKG" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }'
}

# newest_source_pkg: the archive's linux-source-X.Y of the highest X.Y
# (after base_versions has read the lists).
newest_source_pkg() {
	apt_cache_private pkgnames linux-source- 2>/dev/null |
		grep -E '^linux-source-[0-9]+\.[0-9]+$' | sort -V | tail -1
}

# newer_base_warning: say so when the archive has a newer $BASE_PKG or,
# for mainline, a newer mainline kernel.
newer_base_warning() {
	[ -z "$BASE_TREE" ] || return 0
	local newest pkg
	newest=$(base_versions | sed -n 1p)
	if [ -n "$newest" ] && dpkg --compare-versions "$newest" gt "$BASE_VERSION"; then
		log "warning: the archive has $BASE_PKG $newest, newer than the series' base $BASE_VERSION"
	fi
	pkg=$(newest_source_pkg)
	if [ "$BASE" = mainline ] && [ -n "$pkg" ] && [ "$pkg" != "$BASE_PKG" ] &&
	   [ "$(printf '%s\n' "$pkg" "$BASE_PKG" | sort -V | tail -1)" = "$pkg" ]; then
		log "warning: the archive has $pkg, a newer mainline than the series' base $BASE_PKG"
	fi
}

# fetch_base_pkg: download the pinned $BASE_PKG (not installed: ensure_base
# unpacks its .deb) and print the .deb's path. When the archive no longer
# has the pinned version, take the newest, with a loud warning.
fetch_base_pkg() {
	local versions deb pkg
	deb=$APT_DIR/archives/${BASE_PKG}_${BASE_VERSION}_all.deb
	[ -r "$deb" ] && { echo "$deb"; return 0; }
	versions=$(base_versions)
	[ -n "$versions" ] || [ "$BASE" != mainline ] || pkg=$(newest_source_pkg)
	if [ -n "$pkg" ]; then
		log "WARNING: the archive no longer has $BASE_PKG, the series' base."
		BASE_PKG=$pkg
		log "WARNING: taking $BASE_PKG instead: the series may not apply."
		versions=$(base_versions)
	fi
	[ -n "$versions" ] || { log "the archive has no $BASE_PKG"; return 1; }
	if ! grep -qxF -- "$BASE_VERSION" <<<"$versions"; then
		log "WARNING: the archive no longer has $BASE_PKG $BASE_VERSION, the series' base."
		log "WARNING: taking $(head -1 <<<"$versions") instead: the series may not apply."
		BASE_VERSION=$(head -1 <<<"$versions")
		deb=$APT_DIR/archives/${BASE_PKG}_${BASE_VERSION}_all.deb
	fi
	(cd "$APT_DIR/archives" && apt_private download "$BASE_PKG=$BASE_VERSION" >/dev/null 2>&1) &&
		[ -r "$deb" ] || { log "cannot download $BASE_PKG=$BASE_VERSION"; return 1; }
	echo "$deb"
}
