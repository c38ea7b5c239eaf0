# lab4-common.gp - shared by lab4's panel figures (loaded after
# figures/common.gp), over csv = results/lab4/iters.csv (columns: scheme,
# workers, passes, label, iteration, rounds, bytes_sent, traffic_mb,
# accuracy, test_loss, train_loss, consensus, consensus_rel, train_s).
# `family` picks the schemes: "group" (all-reduce and groups, the seed's
# Table 2) or "lga" (Horovod's backward passes, the other reading).
if (!exists("family")) family = "group"
keep = family eq "lga" ? '$1 == "lga"' : '$1 != "lga"'
# Worker counts present, and the labels run at w workers (file order).
workers = system("awk -F, '!/^#/ && $1 != \"scheme\" && ".keep." {print $2}' '".csv."' | sort -n | uniq | tr '\\n' ' '")
labels(w) = system(sprintf("awk -F, '!/^#/ && $2 == %s && %s {print $4}' '%s' | awk '!seen[$0]++' | tr '\\n' ' '", w, keep, csv))
# Labels whose consensus distance is ever above 0 (full averages stay at 0).
mixing(w) = system(sprintf("awk -F, '!/^#/ && $2 == %s && %s && $13 > 0 {print $4}' '%s' | awk '!seen[$0]++' | tr '\\n' ' '", w, keep, csv))
# Rows of one configuration, with the metadata and header kept so columns
# can be named.
rows(w, l) = sprintf("< awk -F, '/^#/ || $1 == \"scheme\" || ($2 == %s && $4 == \"%s\")' '%s'", w, l, csv)
# One colour per configuration in every panel and figure: all-reduce 1,
# k passes k + 1 (lga k the same).
ltof(l) = (l eq "all-reduce") ? 1 : 1 + int(l[strstrt(l, "=") + 1:strlen(l)])
# Panels: one per worker count, up to 2 x 3.
set terminal pngcairo size 1400,850 enhanced font "DejaVu Sans,11"
if (exists("out")) set output out
npanels = words(workers)
prows = npanels > 3 ? 2 : 1
pcols = npanels > 3 ? 3 : npanels
