//! TUN devices inside network namespaces (Linux `Documentation/networking/tuntap.rst`).
//!
//! A TUN device belongs to the network namespace of the thread that creates it, and the
//! file descriptor that created it keeps working from any namespace. So a short-lived
//! thread enters the namespace (`setns(2)` on `/run/netns/<name>`, which `ip netns add`
//! makes), opens `/dev/net/tun` and asks for a TUN device without the packet-information
//! prefix (`TUNSETIFF` with `IFF_TUN | IFF_NO_PI`), then ends; the device lives until the
//! descriptor is closed (it is not made persistent), so a killed run leaves no device
//! behind, only its namespace (which `tern emulate --cleanup` removes).

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

use nix::libc;
use nix::sched::{setns, CloneFlags};

// TUNSETIFF = _IOW('T', 202, int) (linux/if_tun.h); its argument is a `struct ifreq *`.
nix::ioctl_write_ptr_bad!(
    tunsetiff,
    nix::request_code_write!(b'T', 202, std::mem::size_of::<libc::c_int>()),
    libc::ifreq
);

/// Opens a new TUN device named `device` in the network namespace `/run/netns/<netns>`,
/// non-blocking; its packets are bare IP packets.
pub fn open_in(netns: &str, device: &str) -> io::Result<File> {
    if device.is_empty() || device.len() >= libc::IFNAMSIZ {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("device name {device:?}: 1 to 15 bytes"),
        ));
    }
    let path = PathBuf::from("/run/netns").join(netns);
    let device = device.to_owned();
    std::thread::spawn(move || -> io::Result<File> {
        let ns = File::open(&path)?;
        setns(&ns, CloneFlags::CLONE_NEWNET).map_err(io::Error::from)?;
        let tun = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open("/dev/net/tun")?;
        // SAFETY: ifreq is plain data; all zeros is a valid value.
        let mut ifr: libc::ifreq = unsafe { std::mem::zeroed() };
        for (d, s) in ifr.ifr_name.iter_mut().zip(device.bytes()) {
            *d = s as libc::c_char;
        }
        ifr.ifr_ifru.ifru_flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
        // SAFETY: the descriptor is open and `ifr` is a valid ifreq the kernel reads and
        // writes back (the device's name).
        unsafe { tunsetiff(tun.as_raw_fd(), &ifr) }.map_err(io::Error::from)?;
        Ok(tun)
    })
    .join()
    .map_err(|_| io::Error::other("the thread opening the TUN device panicked"))?
}
