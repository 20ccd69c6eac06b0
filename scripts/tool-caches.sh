# tool-caches.sh DIR — sourced by the set-up scripts: cargo's, npm's and
# pip's downloads and caches go under DIR (the set-up cache) instead of the
# user's home, so a set-up writes nothing under HOME but the set-up cache
# and $XDG_DATA_HOME/ski (and Go's own caches). A cargo config of the
# user's (a registry mirror, say) is copied along.
ski_user_cargo=${CARGO_HOME:-$HOME/.cargo}
export CARGO_HOME=$1/cargo npm_config_cache=$1/npm PIP_CACHE_DIR=$1/pip npm_config_update_notifier=false
mkdir -p "$CARGO_HOME"
for ski_f in config.toml config; do
	if [ -f "$ski_user_cargo/$ski_f" ] && [ "$ski_user_cargo" != "$CARGO_HOME" ]; then
		cp "$ski_user_cargo/$ski_f" "$CARGO_HOME/$ski_f"
	fi
done
unset ski_user_cargo ski_f
