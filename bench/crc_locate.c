/*
 * Benchmark: the CRC algebra alone on a v1-sized message (10,030 blocks of 4 KiB):
 * locate one flipped bit, then a pair. Not built by make; from a build directory:
 *   cc -O2 -I lib -I . bench/crc_locate.c lib/libdiag.a lib/libutil.a $(pkg-config --libs ext2fs com_err) -o crc_locate
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "util/crc.h"
#include "diag/crc_algebra.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(void){
  size_t n=(size_t)10000*4096+ (size_t)30*4096; unsigned char *a=malloc(n); srand(1);
  for(size_t i=0;i<n;i++)a[i]=rand();
  double t0=now(); uint32_t good=util_crc32_be(~0U,a,n); double t1=now();
  uint64_t bit=(uint64_t)rand()*1000%((uint64_t)n*8); a[bit/8]^=1<<(bit&7);
  uint32_t bad=util_crc32_be(~0U,a,n);
  struct diag_crc_search q={.alg=CRC_ALG_CRC32_BE,.nbytes=n,.syndrome=good^bad,.mask=0xFFFFFFFF,.max_gap=32768,.skip_pairs=1};
  struct diag_crc_result r; double t2=now(); diag_crc_locate(&q,&r); double t3=now();
  printf("crc32_be over %zu bytes: %.3f s; locate 1 bit: %.6f s -> %s (bit %llu, found %llu)\n",n,t1-t0,t3-t2,
    r.count==1&&r.cand[0].bit[0]==bit?"exact":"WRONG",(unsigned long long)bit,(unsigned long long)r.cand[0].bit[0]);
  a[bit/8]^=1<<(bit&7); uint64_t b2=bit+777; a[bit/8]^=1<<(bit&7); a[b2/8]^=1<<(b2&7);
  q.syndrome=good^util_crc32_be(~0U,a,n); q.skip_pairs=0;
  t2=now(); diag_crc_locate(&q,&r); t3=now();
  printf("locate 2 bits (gap <= 32768) in the same: %.3f s, %llu fits\n",t3-t2,(unsigned long long)r.count);
  return 0;}
