/* Plain C pointer chase, written independently of guest-agent/bench for the fidelity check.
 * usage: fidelity_chase SIZE_KIB LOADS REPEATS CPU   (CPU -1: not pinned)
 * prints: min_ns=X median_ns=Y (ns per dependent load). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

struct node {
  struct node* next;
  char pad[64 - sizeof(struct node*)];
};

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t xorshift64(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s SIZE_KIB LOADS REPEATS CPU\n", argv[0]);
    return 2;
  }
  size_t bytes = (size_t)atol(argv[1]) * 1024;
  long loads = atol(argv[2]), repeats = atol(argv[3]);
  int cpu = atoi(argv[4]);
  if (cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof(set), &set);
  }
  size_t n = bytes / sizeof(struct node);
  struct node* nodes =
      mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (nodes == MAP_FAILED || repeats < 1 || repeats > 1000 || n < 2) return 1;
  memset(nodes, 0, bytes);
  /* Sattolo: visit order as an array, then link consecutive entries into one cycle. */
  size_t* order = malloc(n * sizeof(size_t));
  for (size_t i = 0; i < n; i++) order[i] = i;
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = (size_t)(xorshift64() % i);
    size_t tmp = order[i];
    order[i] = order[j];
    order[j] = tmp;
  }
  for (size_t i = 0; i < n; i++) nodes[i].next = &nodes[order[i]];
  free(order);
  struct node* p = nodes;
  for (size_t i = 0; i < n && i < (size_t)loads; i++) p = p->next; /* warm-up */
  double results[1000];
  for (long r = 0; r < repeats; r++) {
    double start = now();
    for (long i = 0; i < loads; i++) p = p->next;
    results[r] = (now() - start) / loads;
  }
  qsort(results, (size_t)repeats, sizeof(double), cmp);
  double median = repeats % 2 ? results[repeats / 2]
                              : (results[repeats / 2 - 1] + results[repeats / 2]) / 2;
  printf("min_ns=%.3f median_ns=%.3f sink=%p\n", results[0], median, (void*)p);
  return 0;
}
