//! Binary frames of an attached connection: one byte of kind, four bytes
//! of big-endian payload length, the payload.

pub const HEADER: usize = 5;
/// The largest payload either side accepts.
pub const MAX_PAYLOAD: usize = 16 * 1024 * 1024;

/// Server → client: PTY output, continuing the stream in order.
pub const OUTPUT: u8 = 1;
/// Server → client: escape sequences that repaint the whole screen.
pub const SNAPSHOT: u8 = 2;
/// Server → client: a [`super::StateFrame`] as JSON.
pub const STATE: u8 = 3;
/// Server → client: the size (rows then cols, u16 big-endian) of the
/// screen the next [`SNAPSHOT`] paints. Sent before every snapshot.
pub const SIZE: u8 = 4;
/// Client → server: keystrokes for the pane.
pub const INPUT: u8 = 11;
/// Client → server: the client's size, rows then cols, u16 big-endian.
pub const RESIZE: u8 = 12;

pub fn encode(kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.extend_from_slice(&header(kind, payload.len()));
    out.extend_from_slice(payload);
    out
}

/// The header of a frame of `kind` whose payload is `len` bytes long,
/// for a sender that writes the payload from where it already is.
pub fn header(kind: u8, len: usize) -> [u8; HEADER] {
    let [a, b, c, d] = u32::try_from(len).unwrap_or(u32::MAX).to_be_bytes();
    [kind, a, b, c, d]
}

/// The kind and payload length of a header; an error for a payload
/// larger than [`MAX_PAYLOAD`].
pub fn parse_header(header: [u8; HEADER]) -> Result<(u8, usize), String> {
    let len = u32::from_be_bytes([header[1], header[2], header[3], header[4]]) as usize;
    if len > MAX_PAYLOAD {
        return Err(format!(
            "a frame of {len} bytes is larger than {MAX_PAYLOAD}"
        ));
    }
    Ok((header[0], len))
}

pub fn resize(rows: u16, cols: u16) -> Vec<u8> {
    sized(RESIZE, rows, cols)
}

/// A [`SIZE`] frame.
pub fn size(rows: u16, cols: u16) -> Vec<u8> {
    sized(SIZE, rows, cols)
}

fn sized(kind: u8, rows: u16, cols: u16) -> Vec<u8> {
    let mut payload = rows.to_be_bytes().to_vec();
    payload.extend_from_slice(&cols.to_be_bytes());
    encode(kind, &payload)
}

/// The rows and cols of a [`RESIZE`] or [`SIZE`] payload.
pub fn parse_resize(payload: &[u8]) -> Option<(u16, u16)> {
    match payload {
        [r0, r1, c0, c1] => Some((
            u16::from_be_bytes([*r0, *r1]),
            u16::from_be_bytes([*c0, *c1]),
        )),
        _ => None,
    }
}
