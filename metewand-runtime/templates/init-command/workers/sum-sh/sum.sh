# Sums the integers of the dataset's values.txt and prints the result's data.
# Usage: sh sum.sh DATASET_FOLDER
set -eu
awk '{ s += $1 } END { printf "{\"sum\": %d}\n", s }' "$1/values.txt"
