# Sourced by the CI scripts. Each step says when it starts, in seconds since
# CI began (JAXCC_CI_T0, set by the first script). CI has 90 minutes: the
# required steps come first, and each later one runs only if, by its
# estimated length, it ends within JAXCC_CI_BUDGET seconds (default 5000);
# a step skipped for time says so.
export JAXCC_CI_T0="${JAXCC_CI_T0:-$(date +%s)}"
export JAXCC_CI_BUDGET="${JAXCC_CI_BUDGET:-5000}"

ci_elapsed() { echo $(($(date +%s) - JAXCC_CI_T0)); }

step() { echo "== $1 (at $(ci_elapsed) s)"; }

# budgeted <estimated seconds> <name>: a step that runs if time allows.
budgeted() {
  local now
  now="$(ci_elapsed)"
  if ((now + $1 > JAXCC_CI_BUDGET)); then
    echo "== $2: SKIPPED for CI time (at $now s, it takes about $1 s, the budget is $JAXCC_CI_BUDGET s)"
    return 1
  fi
  step "$2"
}
