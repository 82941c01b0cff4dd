/* Sums the integers of the dataset's values.txt, one a line, and prints the result's data: {"sum": S}.
 *
 * Build it beside this file before running it (the binary is part of the worker's identity):
 *
 *     cc -O2 -o sum sum.c
 *
 * Usage: ./sum DATASET_FOLDER */
#include <stdio.h>

int main(int argc, char **argv) {
    char path[4096];
    long long sum = 0, value;
    FILE *in;

    if (argc != 2) {
        fprintf(stderr, "usage: %s DATASET_FOLDER\n", argv[0]);
        return 2;
    }
    if (snprintf(path, sizeof path, "%s/values.txt", argv[1]) >= (int)sizeof path) {
        fprintf(stderr, "the dataset folder's path is too long\n");
        return 2;
    }
    in = fopen(path, "r");
    if (in == NULL) {
        perror(path);
        return 1;
    }
    while (fscanf(in, "%lld", &value) == 1) {
        sum += value;
    }
    fclose(in);
    printf("{\"sum\": %lld}\n", sum);
    return 0;
}
