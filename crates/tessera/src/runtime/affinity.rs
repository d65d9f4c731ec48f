//! Worker placement: each worker of a pool that uses all the CPUs the process may use runs
//! on its own one. Left to the scheduler, two workers woken from sleep sometimes
//! share one CPU while the other idles, for the whole of a short run: on this project's
//! 2-vCPU VM, camera_pipe's 2-thread runs took 4.2 ms or 7–8.7 ms (its 1-thread time) from
//! run to run; with each worker on its own CPU, 4.1–4.3 ms every time. No-op off Linux.

/// The CPUs this process may run on (its affinity mask), in order; empty when unknown.
pub fn allowed_cpus() -> Vec<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `cpu_set_t` is plain bits, valid zeroed.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: `sched_getaffinity` writes at most the size passed, the set's own size.
        if unsafe { libc::sched_getaffinity(0, size, &mut set) } != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            // SAFETY: `cpu` is below CPU_SETSIZE, the number of CPUs the set holds.
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
            .collect()
    }
    #[cfg(not(target_os = "linux"))]
    {
        Vec::new()
    }
}

/// Runs the calling thread on `cpu` only (best effort: a failure leaves it where it was).
pub fn pin_current_thread(cpu: usize) {
    #[cfg(target_os = "linux")]
    {
        if cpu >= libc::CPU_SETSIZE as usize {
            return;
        }
        // SAFETY: `cpu_set_t` is plain bits, valid zeroed; `cpu` is below CPU_SETSIZE
        // (checked above), so CPU_SET stays inside the set; `sched_setaffinity` reads exactly
        // the set's size.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cpu;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_thread_runs_only_on_its_cpu() {
        let cpus = allowed_cpus();
        if cfg!(target_os = "linux") {
            assert!(!cpus.is_empty(), "the process runs somewhere");
        }
        if let Some(&last) = cpus.last() {
            let seen = std::thread::spawn(move || {
                pin_current_thread(last);
                allowed_cpus()
            })
            .join()
            .expect("the thread runs");
            assert_eq!(seen, vec![last]);
        }
        // Pinning one thread changes no other thread's CPUs.
        assert_eq!(allowed_cpus(), cpus);
    }
}
