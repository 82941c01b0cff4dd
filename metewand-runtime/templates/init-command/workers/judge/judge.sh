# Judges a result: the exact sum of the dataset's values.txt against the sum the implementation's result holds.
# Prints the verdict and the metrics.
# Usage: sh judge.sh DATASET_FOLDER RESULT_FOLDER
set -eu
expected=$(awk '{ s += $1 } END { printf "%d", s }' "$1/values.txt")
got=$(sed -n 's/.*"sum": *\(-\{0,1\}[0-9][0-9]*\).*/\1/p' "$2/result.json")
if [ "$got" = "$expected" ]; then verdict=reached; else verdict=not_reached; fi
error=$(( ${got:-0} - expected ))
printf '{"verdict": "%s", "metrics": {"error": %s}}\n' "$verdict" "${error#-}"
