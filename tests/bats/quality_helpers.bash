# Shared by the quality report's Bats files (quality_families.bats, quality_models.bats).

# No roofline share above 100 %, in the rows (GEMM table: "NN% mem|mma" before the ceiling;
# family table: before the limit) and the model lines; prints the offending lines.
within_roofline() {
  awk '
    /^model / { for (i = 1; i <= NF; i++) if ($i ~ /%$/ && $(i+1) == "of") { v = $i; sub("%", "", v); if (v + 0 > 100) { print; bad = 1 } } next }
    /^  [a-z0-9]+ +[0-9]+ / { v = $NF; sub("%", "", v); if (v + 0 > 100) { print; bad = 1 } next }
    { for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+%$/ && ($(i+1) == "mem" || $(i+1) == "mma")) { v = $i; sub("%", "", v); if (v + 0 > 100) { print; bad = 1 } } }
    END { exit bad }' "$@"
}
