;; The JSON scanner behind managedFields cutting: finds where an array (or object) ends in UTF-8 JSON bytes.
;; The same contract as end-of-array.ts's endOfArray, which stays the reference (and the fallback); compiled
;; by scripts/wasm.js into scanner-wasm.ts. Strings are skipped 16 bytes at a time (WebAssembly SIMD), which
;; is where a managedFields array spends most of its bytes; the structure between them is read byte by byte.
(module
  ;; The caller copies the JSON into memory from offset 0. It keeps 16 bytes of room past the end of the
  ;; text, because a 16-byte load may read past it; what those bytes hold never changes the result.
  (memory (export "memory") 1)

  ;; The index just past the `]` or `}` that closes the value opening at $open (memory[$open] is `[` or `{`),
  ;; looking no further than $n; -1 when the text ends first. Like the reference, closers are only counted,
  ;; not matched: malformed JSON is left for JSON.parse to report.
  (func (export "endOfArray") (param $open i32) (param $n i32) (result i32)
    (local $i i32) (local $c i32) (local $depth i32) (local $hits i32)
    (local.set $i (local.get $open))
    (block $ends_early
      (loop $structure
        (br_if $ends_early (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $c (i32.load8_u (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        ;; `"`: skip the string to its closing quote, stepping over each escaped character.
        (if (i32.eq (local.get $c) (i32.const 0x22))
          (then
            (loop $string
              (br_if $ends_early (i32.ge_u (local.get $i) (local.get $n)))
              ;; Bit k of $hits: byte $i+k is `"` or `\`.
              (local.set $hits
                (i8x16.bitmask
                  (v128.or
                    (i8x16.eq (v128.load (local.get $i)) (i8x16.splat (i32.const 0x22)))
                    (i8x16.eq (v128.load (local.get $i)) (i8x16.splat (i32.const 0x5c))))))
              (if (i32.eqz (local.get $hits))
                (then
                  (local.set $i (i32.add (local.get $i) (i32.const 16)))
                  (br $string)))
              (local.set $i (i32.add (local.get $i) (i32.ctz (local.get $hits))))
              ;; A hit past the end is not in the text: the string does not close.
              (br_if $ends_early (i32.ge_u (local.get $i) (local.get $n)))
              (local.set $c (i32.load8_u (local.get $i)))
              (local.set $i (i32.add (local.get $i) (i32.const 1)))
              ;; `\`: the next byte is escaped (UTF-8 never puts `"` or `\` inside a multi-byte sequence).
              (if (i32.eq (local.get $c) (i32.const 0x5c))
                (then
                  (local.set $i (i32.add (local.get $i) (i32.const 1)))
                  (br $string))))
            (br $structure)))
        ;; `[` or `{` opens a level.
        (if (i32.or (i32.eq (local.get $c) (i32.const 0x5b)) (i32.eq (local.get $c) (i32.const 0x7b)))
          (then
            (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
            (br $structure)))
        ;; `]` or `}` closes one; closing the first ends the value.
        (if (i32.or (i32.eq (local.get $c) (i32.const 0x5d)) (i32.eq (local.get $c) (i32.const 0x7d)))
          (then
            (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
            (if (i32.eqz (local.get $depth))
              (then (return (local.get $i))))))
        (br $structure)))
    (i32.const -1))

  ;; The index of the first `"managedFields":[` in [$from, $n), or -1: Buffer.indexOf with that pattern, which
  ;; omit-managed-fields.ts uses where this module is missing. 16 positions at a time, a candidate is a `"`
  ;; followed by `m` (a key such as "metadata" or "managedFields"), checked whole as two 8-byte words and a byte.
  (func (export "findManagedFields") (param $from i32) (param $n i32) (result i32)
    (local $i i32) (local $hits i32) (local $at i32)
    (local.set $i (local.get $from))
    (block $none
      (loop $chunk
        (br_if $none (i32.ge_u (local.get $i) (local.get $n)))
        ;; Bit k of $hits: bytes $i+k and $i+k+1 are `"` and `m`. The loads may read 16 bytes past $n.
        (local.set $hits
          (i8x16.bitmask
            (v128.and
              (i8x16.eq (v128.load (local.get $i)) (i8x16.splat (i32.const 0x22)))
              (i8x16.eq (v128.load offset=1 (local.get $i)) (i8x16.splat (i32.const 0x6d))))))
        (block $next
          (loop $candidate
            (br_if $next (i32.eqz (local.get $hits)))
            (local.set $at (i32.add (local.get $i) (i32.ctz (local.get $hits))))
            ;; The whole 17-byte pattern must lie in the text (a hit past $n is stale bytes).
            (br_if $none (i32.gt_u (i32.add (local.get $at) (i32.const 17)) (local.get $n)))
            ;; `"managed` and `Fields":` as little-endian words, then `[`.
            (if (i32.and
                  (i32.and
                    (i64.eq (i64.load (local.get $at)) (i64.const 0x646567616e616d22))
                    (i64.eq (i64.load offset=8 (local.get $at)) (i64.const 0x3a2273646c656946)))
                  (i32.eq (i32.load8_u offset=16 (local.get $at)) (i32.const 0x5b)))
              (then (return (local.get $at))))
            ;; Clear the lowest set bit: the next candidate.
            (local.set $hits (i32.and (local.get $hits) (i32.sub (local.get $hits) (i32.const 1))))
            (br $candidate)))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $chunk)))
    (i32.const -1)))
