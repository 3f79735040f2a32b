/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The memory-cgroup kfuncs of mm/bpf_memcontrol.c (Linux >= 7.0), declared
 * here rather than taken from vmlinux.h: bpftool 7.1 emits no kfunc
 * prototypes and newer ones emit them __weak. Strong declarations make a load
 * on an older kernel fail loudly; user space checks the kernel BTF for them
 * before it tries (see sampler_bpf.c).
 */
#ifndef MEMCG_KFUNCS_H
#define MEMCG_KFUNCS_H

/* Acquires a reference; may return NULL; release with bpf_put_mem_cgroup(). */
extern struct mem_cgroup *bpf_get_mem_cgroup(struct cgroup_subsys_state *css) __ksym;
extern void bpf_put_mem_cgroup(struct mem_cgroup *memcg) __ksym;
/* Sleepable: only from SEC("iter.s/...") and other sleepable programs. */
extern void bpf_mem_cgroup_flush_stats(struct mem_cgroup *memcg) __ksym;
/* node_stat_item or memcg_stat_item, in memory.stat units; -1 when invalid. */
extern unsigned long bpf_mem_cgroup_page_state(struct mem_cgroup *memcg, int idx) __ksym;
/* -1 for an event not tracked per memcg. */
extern unsigned long bpf_mem_cgroup_vm_events(struct mem_cgroup *memcg,
					      enum vm_event_item event) __ksym;
/* memory.current, in bytes. */
extern unsigned long bpf_mem_cgroup_usage(struct mem_cgroup *memcg) __ksym;
/* The hierarchical memory.events counters. */
extern unsigned long bpf_mem_cgroup_memory_events(struct mem_cgroup *memcg,
						  enum memcg_memory_event event) __ksym;

#endif
