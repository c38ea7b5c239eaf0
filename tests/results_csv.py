"""results_csv.py - writes a results CSV as the labs write theirs, for the
report's tests (report_inputs.py, report_rules.py, report_mutations.py):
one '# key: value' provenance line per META entry, then the header and
the ROWS (dicts with the same keys)."""
import csv
import os


def write_results_csv(path, rows, meta):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        for k, v in meta.items():
            f.write(f"# {k}: {v}\n")
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
