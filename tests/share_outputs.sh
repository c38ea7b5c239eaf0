# tests/share_outputs.sh - sourced by tests/e2e_labN.sh.
#
# share_outputs LAB TABLES FIGURES [RESULTS]: when DDL_E2E_SHARE is set
# (tests/run.sh sets it for each phase), copy the LaTeX tables and PNG
# figures a lab's tiny end-to-end run rendered to
# $DDL_E2E_SHARE/LAB/{tab,fig}, and its results folder (CSV, JSON and the
# index.csv that names its figures and tables) to $DDL_E2E_SHARE/LAB/results
# with the index's paths pointing at the copies, so that
# tests/e2e_report.sh builds the report from those runs instead of running
# every lab a second time.
share_outputs() {
  [ -n "${DDL_E2E_SHARE:-}" ] || return 0
  local dest=$DDL_E2E_SHARE/$1
  rm -rf "$dest"
  mkdir -p "$dest/tab" "$dest/fig" "$dest/results" || return 0
  cp "$2"/*.tex "$dest/tab/" 2>/dev/null
  cp "$3"/*.png "$dest/fig/" 2>/dev/null
  if [ -n "${4:-}" ] && [ -d "$4" ]; then
    cp "$4"/*.csv "$4"/*.json "$4"/*.png "$dest/results/" 2>/dev/null
    if [ -f "$4/index.csv" ]; then
      # The index names the run's own folders: point it at the copies.
      awk -v fig="$3/" -v tab="$2/" -v nfig="$dest/fig/" -v ntab="$dest/tab/" '
        function swap(s, from, to,   i) { i = index(s, from); return i ? substr(s, 1, i - 1) to substr(s, i + length(from)) : s }
        { print swap(swap($0, fig, nfig), tab, ntab) }' "$4/index.csv" > "$dest/results/index.csv"
    fi
  fi
  return 0
}
