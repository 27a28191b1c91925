# What the command-line tests share: a scratch directory $dir (removed on exit), fail, and
# expect_error. Sourced by the test scripts.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}
# expect_error TEXT COMMAND...: the command fails with exit 2 and one line on stderr holding TEXT.
expect_error() {
  local want="$1"
  shift
  local rc=0
  "$@" >"$dir/out" 2>"$dir/err" || rc=$?
  [ "$rc" = 2 ] || fail "exit $rc, not 2, for: $* ($(cat "$dir/err"))"
  grep -qF -- "$want" "$dir/err" || fail "unclear error for '$*': $(cat "$dir/err")"
  [ "$(wc -l <"$dir/err")" = 1 ] || fail "not one line for '$*': $(cat "$dir/err")"
}
