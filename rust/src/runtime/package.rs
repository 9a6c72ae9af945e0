//! A compiled kernel as bytes, for compiled host code cached on disk: the device binary (SPIR-V or
//! PTX), its argument-slot layout and the device target it was compiled for. Loading a package
//! needs no code generation; the runtime only builds the program for a context (through the
//! on-disk program cache).
//!
//! Layout (little endian): magic `NXKP`, format version (u32), then length-prefixed fields: the
//! target key, the kernel name, the binary; flavor (u8), int_minmax (u8), graph nodes (u32), slot
//! count (u32) and one tag per slot (0: memory, 1: i64, 2: scalar followed by its dtype name).

use crate::codegen::{ArgSlot, Binary, Flavor};
use crate::error::{Error, Result};
use crate::ir::DType;

const MAGIC: &[u8; 4] = b"NXKP";
/// The format, and the code generation the binaries came from: a change that makes code generation
/// give different device code for the same kernel (a fix) moves it, so packages stored before are
/// refused and compiled again. 2: a SPIR-V `sitofp` of a bool is a select (`codegen/emit.rs`).
/// 3: a float made unsigned converts through a signed 64-bit integer (`codegen/ops.rs`).
const VERSION: u32 = 3;

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

/// `binary` compiled for the device target `target_key` as a package.
pub fn encode(binary: &Binary, target_key: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(binary.bytes.len() + 128);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    put_bytes(&mut out, target_key.as_bytes());
    put_bytes(&mut out, binary.kernel_name.as_bytes());
    put_bytes(&mut out, &binary.bytes);
    out.push(match binary.flavor {
        Flavor::Spirv => 0,
        Flavor::Nvptx => 1,
    });
    out.push(binary.int_minmax as u8);
    out.extend_from_slice(&(binary.graph_nodes as u32).to_le_bytes());
    out.extend_from_slice(&(binary.slots.len() as u32).to_le_bytes());
    for s in &binary.slots {
        match s {
            ArgSlot::Mem => out.push(0),
            ArgSlot::I64 => out.push(1),
            ArgSlot::Scalar(d) => {
                out.push(2);
                put_bytes(&mut out, d.name().as_bytes());
            }
        }
    }
    out
}

struct Reader<'a> {
    b: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.b.len() < n {
            return Err(bad("truncated"));
        }
        let (head, rest) = self.b.split_at(n);
        self.b = rest;
        Ok(head)
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    fn string(&mut self) -> Result<String> {
        String::from_utf8(self.bytes()?.to_vec()).map_err(|_| bad("a name is not UTF-8"))
    }
}

fn bad(what: &str) -> Error {
    Error::Launch(format!("invalid compiled-kernel package ({what}); clear the cache and recompile"))
}

/// The binary in a package and the target key it was compiled for.
pub fn decode(bytes: &[u8]) -> Result<(Binary, String)> {
    let mut r = Reader { b: bytes };
    if r.take(4)? != MAGIC {
        return Err(bad("not a package"));
    }
    let version = r.u32()?;
    if version != VERSION {
        return Err(bad(&format!("format {version}, this numba_ext reads {VERSION}")));
    }
    let target = r.string()?;
    let kernel_name = r.string()?;
    let code = r.bytes()?.to_vec();
    let flavor = match r.u8()? {
        0 => Flavor::Spirv,
        1 => Flavor::Nvptx,
        _ => return Err(bad("unknown device code format")),
    };
    let int_minmax = r.u8()? != 0;
    let graph_nodes = r.u32()? as usize;
    let n = r.u32()? as usize;
    let mut slots = Vec::with_capacity(n.min(4096));
    for _ in 0..n {
        slots.push(match r.u8()? {
            0 => ArgSlot::Mem,
            1 => ArgSlot::I64,
            2 => ArgSlot::Scalar(DType::parse(&r.string()?).map_err(|_| bad("unknown dtype"))?),
            _ => return Err(bad("unknown slot kind")),
        });
    }
    if !r.b.is_empty() {
        return Err(bad("trailing bytes"));
    }
    let binary = Binary { kernel_name, flavor, bytes: code, llvm_ir: String::new(), slots, graph_nodes, int_minmax };
    Ok((binary, target))
}

/// Generated device code as an entry of the on-disk code cache: the package of `binary` followed by
/// its LLVM IR (kept for inspection and `NUMBA_EXT_DUMP_DIR`).
pub fn encode_code(binary: &Binary, target_key: &str) -> Vec<u8> {
    let package = encode(binary, target_key);
    let mut out = Vec::with_capacity(package.len() + binary.llvm_ir.len() + 8);
    put_bytes(&mut out, &package);
    put_bytes(&mut out, binary.llvm_ir.as_bytes());
    out
}

/// The binary (LLVM IR included) and target key of a code-cache entry.
pub fn decode_code(bytes: &[u8]) -> Result<(Binary, String)> {
    let mut r = Reader { b: bytes };
    let (mut binary, target) = decode(r.bytes()?)?;
    binary.llvm_ir = r.string()?;
    if !r.b.is_empty() {
        return Err(bad("trailing bytes"));
    }
    Ok((binary, target))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_damage() {
        let b = Binary {
            kernel_name: "k".into(),
            flavor: Flavor::Nvptx,
            bytes: vec![1, 2, 3],
            llvm_ir: "ir".into(),
            slots: vec![ArgSlot::Mem, ArgSlot::I64, ArgSlot::Scalar(DType::F32)],
            graph_nodes: 7,
            int_minmax: true,
        };
        let p = encode(&b, "Ptx(90)|true|false");
        let (d, t) = decode(&p).unwrap();
        assert_eq!(t, "Ptx(90)|true|false");
        assert_eq!(
            (d.kernel_name.as_str(), d.bytes.as_slice(), d.slots.as_slice()),
            ("k", &[1u8, 2, 3][..], &b.slots[..])
        );
        assert!(d.int_minmax && d.graph_nodes == 7 && d.flavor == Flavor::Nvptx);
        for cut in 0..p.len() {
            assert!(decode(&p[..cut]).is_err());
        }
        let mut longer = p.clone();
        longer.push(0);
        assert!(decode(&longer).is_err());
    }
}
