# Materializes a dataset: `count` pseudo-random integers below 1000, one a line in values.txt, drawn from the
# dataset's seed. Prints the dataset's data.
# Usage: sh generate.sh DATASET_FOLDER SEED PARAMETERS_FILE
set -eu
count=$(sed -n 's/.*"count": *\([0-9][0-9]*\).*/\1/p' "$3")
awk -v seed="$2" -v count="$count" \
    'BEGIN { srand(seed % 2147483648); for (i = 0; i < count; i++) print int(rand() * 1000) }' > "$1/values.txt"
printf '{"count": %s}\n' "$count"
