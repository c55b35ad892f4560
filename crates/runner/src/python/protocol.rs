//! The framing of the runner ↔ Python worker protocol (`docs/python.md`):
//! an 8-byte little-endian length, that many bytes of JSON (the header),
//! then the float64 arrays the header's `arrays` list names, little-endian,
//! row-major. Floats cross as raw bytes, so every value arrives bit for bit
//! (JSON's decimal text would round-trip too, but at about 20 bytes and a
//! parse per value instead of 8 bytes and a copy).

use std::io::{self, Read, Write};

use serde_json::{json, Value};

/// An array to send: a name, a row-major shape and its values.
#[derive(Debug, Clone, Copy)]
pub struct ArrayRef<'a> {
    /// Name the other side reads it by.
    pub name: &'a str,
    /// Row-major shape; the product is `values.len()`.
    pub shape: [usize; 2],
    /// Whether the shape is one-dimensional (`shape[0]` values).
    pub vector: bool,
    /// The values.
    pub values: &'a [f64],
}

/// A received array.
#[derive(Debug, Clone, PartialEq)]
pub struct Array {
    /// Its name.
    pub name: String,
    /// Its shape as sent.
    pub shape: Vec<usize>,
    /// Its values, row-major.
    pub values: Vec<f64>,
}

/// A received message: the JSON header and its arrays.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The header (its `arrays` list already consumed).
    pub header: Value,
    /// The arrays, in the header's order.
    pub arrays: Vec<Array>,
}

impl Message {
    /// The array named `name`, if sent.
    pub fn array(&self, name: &str) -> Option<&Array> {
        self.arrays.iter().find(|a| a.name == name)
    }
}

/// Values per write on a big-endian machine: 64 KiB of bytes, so a large
/// array streams through a small buffer instead of a second copy of itself.
#[cfg(not(target_endian = "little"))]
const CHUNK: usize = 8192;

/// Writes one message (`header` must be a JSON object; its `arrays` field is
/// set from `arrays`) and flushes.
pub fn write_message(w: &mut impl Write, header: &Value, arrays: &[ArrayRef]) -> io::Result<()> {
    let mut header = header.clone();
    let listed: Vec<Value> = arrays
        .iter()
        .map(|a| {
            let shape = if a.vector {
                json!([a.shape[0]])
            } else {
                json!(a.shape)
            };
            json!({ "name": a.name, "shape": shape })
        })
        .collect();
    header
        .as_object_mut()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "header is not an object"))?
        .insert("arrays".into(), Value::Array(listed));
    let body = serde_json::to_vec(&header)?;
    w.write_all(&(body.len() as u64).to_le_bytes())?;
    w.write_all(&body)?;
    for a in arrays {
        write_f64s(w, a.values)?;
    }
    w.flush()
}

/// Writes `values` as little-endian float64 bytes.
#[cfg(target_endian = "little")]
pub fn write_f64s(w: &mut impl Write, values: &[f64]) -> io::Result<()> {
    // SAFETY: f64 has no padding and every bit pattern is a valid u8
    // sequence; u8's alignment is 1; the length is the slice's size in
    // bytes. On a little-endian machine these are the bytes to send, so the
    // records are written without a converted copy (8e7 bytes at n d = 1e7).
    let bytes =
        unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), 8 * values.len()) };
    w.write_all(bytes)
}

/// Writes `values` as little-endian float64 bytes.
#[cfg(not(target_endian = "little"))]
pub fn write_f64s(w: &mut impl Write, values: &[f64]) -> io::Result<()> {
    let mut bytes = Vec::with_capacity(8 * CHUNK);
    for chunk in values.chunks(CHUNK) {
        bytes.clear();
        chunk
            .iter()
            .for_each(|x| bytes.extend_from_slice(&x.to_le_bytes()));
        w.write_all(&bytes)?;
    }
    Ok(())
}

/// Reads one message; `Ok(None)` at a clean end of stream (before a length).
pub fn read_message(r: &mut impl Read) -> io::Result<Option<Message>> {
    let mut len = [0u8; 8];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u64::from_le_bytes(len);
    // A header is a few kilobytes; a length past 64 MiB is a corrupt stream
    // (a stray print into the protocol pipe), not a header.
    if len > 64 << 20 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a header of {len} bytes: the stream is corrupt"),
        ));
    }
    let mut body = vec![0u8; len as usize];
    r.read_exact(&mut body)?;
    let mut header: Value = serde_json::from_slice(&body)?;
    let listed = header
        .as_object_mut()
        .and_then(|o| o.remove("arrays"))
        .unwrap_or(Value::Array(Vec::new()));
    let mut arrays = Vec::new();
    for a in listed.as_array().into_iter().flatten() {
        let name = a["name"].as_str().unwrap_or_default().to_string();
        let shape: Vec<usize> = a["shape"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|v| v.as_u64().unwrap_or(0) as usize)
            .collect();
        let count: usize = shape.iter().product();
        let mut raw = vec![0u8; 8 * count];
        r.read_exact(&mut raw)?;
        let values = raw
            .chunks_exact(8)
            .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect();
        arrays.push(Array {
            name,
            shape,
            values,
        });
    }
    Ok(Some(Message { header, arrays }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_round_trips_bit_for_bit() {
        let m = [1.0, -0.0, f64::MIN_POSITIVE, 1e308, f64::NAN, 0.1 + 0.2];
        let v: Vec<f64> = (0..20_000).map(|i| (i as f64).sqrt()).collect();
        let mut buf = Vec::new();
        write_message(
            &mut buf,
            &json!({"op": "run", "seed": 7}),
            &[
                ArrayRef {
                    name: "records",
                    shape: [3, 2],
                    vector: false,
                    values: &m,
                },
                ArrayRef {
                    name: "h",
                    shape: [20_000, 1],
                    vector: true,
                    values: &v,
                },
            ],
        )
        .unwrap();
        let back = read_message(&mut buf.as_slice()).unwrap().unwrap();
        assert_eq!(back.header["seed"], 7);
        let r = back.array("records").unwrap();
        assert_eq!(r.shape, vec![3, 2]);
        let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&r.values), bits(&m));
        assert_eq!(back.array("h").unwrap().shape, vec![20_000]);
        assert_eq!(bits(&back.array("h").unwrap().values), bits(&v));
    }

    #[test]
    fn a_clean_end_is_none_and_a_cut_message_an_error() {
        assert!(read_message(&mut [].as_slice()).unwrap().is_none());
        let mut buf = Vec::new();
        write_message(&mut buf, &json!({"ok": true}), &[]).unwrap();
        buf.truncate(buf.len() - 1);
        assert!(read_message(&mut buf.as_slice()).is_err());
    }

    #[test]
    fn a_corrupt_length_is_refused_before_allocating() {
        let buf = u64::MAX.to_le_bytes();
        let e = read_message(&mut buf.as_slice()).unwrap_err();
        assert!(e.to_string().contains("corrupt"), "{e}");
    }
}
