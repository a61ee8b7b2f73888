/* Plain C core-to-core ping-pong, written independently of guest-agent/bench for the fidelity
 * check. usage: fidelity_c2c CPU_A CPU_B ITERATIONS REPEATS cas|rw
 * prints: min_ns=X median_ns=Y (one-way latency = round trip / 2). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static _Alignas(64) _Atomic unsigned long line_a;
static _Alignas(64) _Atomic unsigned long line_b;
static long iterations, repeats;
static int use_cas;
static double results[1000];

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0) {
    fprintf(stderr, "cannot pin to CPU %d\n", cpu);
    exit(1);
  }
}

static void* responder(void* arg) {
  pin(*(int*)arg);
  unsigned long total = (unsigned long)(iterations * repeats);
  for (unsigned long n = 0; n < total; n++) {
    if (use_cas) {
      unsigned long expect = 2 * n + 1;
      while (!atomic_compare_exchange_weak(&line_a, &expect, 2 * n + 2)) expect = 2 * n + 1;
    } else {
      while (atomic_load_explicit(&line_a, memory_order_acquire) != n + 1) {
      }
      atomic_store_explicit(&line_b, n + 1, memory_order_release);
    }
  }
  return NULL;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s CPU_A CPU_B ITERATIONS REPEATS cas|rw\n", argv[0]);
    return 2;
  }
  int a = atoi(argv[1]), b = atoi(argv[2]);
  iterations = atol(argv[3]);
  repeats = atol(argv[4]);
  use_cas = strcmp(argv[5], "cas") == 0;
  if (iterations < 1 || repeats < 1 || repeats > 1000) return 2;
  pthread_t t;
  pthread_create(&t, NULL, responder, &b);
  pin(a);
  unsigned long n = 0;
  for (long r = 0; r < repeats; r++) {
    double start = now();
    for (long k = 0; k < iterations; k++, n++) {
      if (use_cas) {
        unsigned long expect = 2 * n;
        while (!atomic_compare_exchange_weak(&line_a, &expect, 2 * n + 1)) expect = 2 * n;
      } else {
        atomic_store_explicit(&line_a, n + 1, memory_order_release);
        while (atomic_load_explicit(&line_b, memory_order_acquire) != n + 1) {
        }
      }
    }
    if (use_cas) {
      while (atomic_load(&line_a) != 2 * n) {
      }
    }
    results[r] = (now() - start) / (2.0 * iterations);
  }
  pthread_join(t, NULL);
  qsort(results, (size_t)repeats, sizeof(double), cmp);
  double median = repeats % 2 ? results[repeats / 2]
                              : (results[repeats / 2 - 1] + results[repeats / 2]) / 2;
  printf("min_ns=%.3f median_ns=%.3f\n", results[0], median);
  return 0;
}
