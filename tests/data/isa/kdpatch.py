import struct, sys
# kdpatch.py CO KERNEL OFFSET MASK VALUE OUT: in the 32-bit word at byte OFFSET of the kernel
# descriptor KERNEL.kd, replace the bits of MASK by VALUE (tests/bats/isa.bats' planted faults).
d = bytearray(open(sys.argv[1], 'rb').read())
shoff, = struct.unpack_from('<Q', d, 0x28); shentsize, shnum = struct.unpack_from('<HH', d, 0x3a)
phoff, = struct.unpack_from('<Q', d, 0x20); phentsize, phnum = struct.unpack_from('<HH', d, 0x36)
secs = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize) for i in range(shnum)]
dynsym = next(s for s in secs if s[1] == 11)
strtab = secs[dynsym[6]]
for j in range(dynsym[5] // 24):
    name, info, other, shndx, value, size = struct.unpack_from('<IBBHQQ', d, dynsym[4] + 24 * j)
    n = d[strtab[4] + name:].split(b'\0')[0].decode()
    if n == sys.argv[2] + '.kd':
        for p in range(phnum):
            typ, flags, off, vaddr, paddr, filesz, memsz, align = struct.unpack_from('<IIQQQQQQ', d, phoff + p * phentsize)
            if typ == 1 and vaddr <= value < vaddr + filesz:
                at = off + value - vaddr + int(sys.argv[3], 0)
                word, = struct.unpack_from('<I', d, at)
                mask = int(sys.argv[4], 0)
                struct.pack_into('<I', d, at, (word & ~mask) | int(sys.argv[5], 0))
open(sys.argv[6], 'wb').write(d)
