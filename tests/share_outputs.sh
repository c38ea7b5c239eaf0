# tests/share_outputs.sh - sourced by tests/e2e_labN.sh.
#
# share_outputs LAB TABLES FIGURES: when DDL_E2E_SHARE is set (tests/run.sh
# sets it for each phase), copy the LaTeX tables and PNG figures a lab's
# tiny end-to-end run rendered to $DDL_E2E_SHARE/LAB/{tab,fig}, so that
# tests/e2e_report.sh builds the report from those runs instead of running
# every lab a second time.
share_outputs() {
  [ -n "${DDL_E2E_SHARE:-}" ] || return 0
  local dest=$DDL_E2E_SHARE/$1
  rm -rf "$dest"
  mkdir -p "$dest/tab" "$dest/fig" || return 0
  cp "$2"/*.tex "$dest/tab/" 2>/dev/null
  cp "$3"/*.png "$dest/fig/" 2>/dev/null
  return 0
}
