//! Times as a person reads them: the local wall clock and how long ago.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch, now.
pub fn now_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// `at` (milliseconds since the epoch) as local `YYYY-MM-DD HH:MM:SS`.
pub fn local_time(at: u64) -> String {
    let secs = libc::time_t::try_from(at / 1000).unwrap_or(libc::time_t::MAX);
    // SAFETY: an all-zero `tm` is a valid value to be overwritten.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: localtime_r(3) reads `secs` and writes only into `tm`.
    if unsafe { libc::localtime_r(&secs, &mut tm) }.is_null() {
        return format!("{at} ms after 1970");
    }
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec
    )
}

/// `at` (milliseconds since the epoch) as local `HH:MM:SS.mmm`.
pub fn time_of_day(at: u64) -> String {
    let full = local_time(at);
    let time = full.rsplit(' ').next().unwrap_or(&full);
    format!("{time}.{:03}", at % 1000)
}

/// How long before `now` the moment `at` was, in its largest whole unit:
/// `12s ago`, `3m ago`, `5h ago`, `2d ago`.
pub fn ago(at: u64, now: u64) -> String {
    let secs = now.saturating_sub(at) / 1000;
    match secs {
        0..60 => format!("{secs}s ago"),
        60..3600 => format!("{}m ago", secs / 60),
        3600..86_400 => format!("{}h ago", secs / 3600),
        _ => format!("{}d ago", secs / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ago_uses_the_largest_whole_unit() {
        let now = 10_000_000_000;
        assert_eq!(ago(now - 5_000, now), "5s ago");
        assert_eq!(ago(now - 125_000, now), "2m ago");
        assert_eq!(ago(now - 7_200_000, now), "2h ago");
        assert_eq!(ago(now - 3 * 86_400_000, now), "3d ago");
        assert_eq!(
            ago(now + 1, now),
            "0s ago",
            "a clock step back is not negative"
        );
    }

    #[test]
    fn local_time_has_the_shape_of_a_date() {
        let text = local_time(now_millis());
        assert_eq!(text.len(), 19, "{text}");
        assert_eq!(&text[4..5], "-");
        assert_eq!(&text[13..14], ":");
    }
}
