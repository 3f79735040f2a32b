/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kfuncs the walks call, declared here rather than taken from vmlinux.h
 * (bpftool 7.1 emits no kfunc prototypes). They are __weak: one object holds
 * a walk for each kind of kernel, user space loads only the walk whose kfuncs
 * the running kernel's BTF has (see sampler_bpf.c), and libbpf leaves a
 * missing weak kfunc of a walk it does not load alone.
 *
 * The memory-cgroup kfuncs of mm/bpf_memcontrol.c (Linux >= 7.0):
 */
#ifndef MEMCG_KFUNCS_H
#define MEMCG_KFUNCS_H

/* Acquires a reference; may return NULL; release with bpf_put_mem_cgroup(). */
extern struct mem_cgroup *bpf_get_mem_cgroup(struct cgroup_subsys_state *css) __ksym __weak;
extern void bpf_put_mem_cgroup(struct mem_cgroup *memcg) __ksym __weak;
/* Sleepable: only from SEC("iter.s/...") and other sleepable programs. */
extern void bpf_mem_cgroup_flush_stats(struct mem_cgroup *memcg) __ksym __weak;
/* node_stat_item or memcg_stat_item, in memory.stat units; -1 when invalid. */
extern unsigned long bpf_mem_cgroup_page_state(struct mem_cgroup *memcg, int idx) __ksym __weak;
/* -1 for an event not tracked per memcg. */
extern unsigned long bpf_mem_cgroup_vm_events(struct mem_cgroup *memcg,
					      enum vm_event_item event) __ksym __weak;
/* memory.current, in bytes. */
extern unsigned long bpf_mem_cgroup_usage(struct mem_cgroup *memcg) __ksym __weak;
/* The hierarchical memory.events counters. */
extern unsigned long bpf_mem_cgroup_memory_events(struct mem_cgroup *memcg,
						  enum memcg_memory_event event) __ksym __weak;


/*
 * The rstat flush of Linux 6.1 to 6.15 (kernel/cgroup/rstat.c), registered
 * for tracing programs and sleepable. 6.16 renamed it css_rstat_flush() and
 * made it take a css; a cgroup iterator program cannot get the memory css as
 * a trusted pointer, so there user space flushes (see sampler_bpf.c).
 */
extern void cgroup_rstat_flush(struct cgroup *cgrp) __ksym __weak;

/*
 * cgroup v1's soft limit (memory.soft_limit_in_bytes, in pages). Linux 6.11
 * put the cgroup v1-only members of struct mem_cgroup under the new
 * CONFIG_MEMCG_V1 (the series that made mm/memcontrol-v1.c): Debian's 6.12
 * and 7.x cloud kernels have neither the field nor v1 memory cgroups; 6.1,
 * and 6.18 with CONFIG_MEMCG_V1, have both. A flavor, so that
 * a vmlinux.h without the field still builds; read only where it exists.
 */
struct mem_cgroup___v1 {
	unsigned long soft_limit;
} __attribute__((preserve_access_index));

#endif
