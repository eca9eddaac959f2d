;; The JSON scanner behind managedFields cutting: finds where an array (or object) ends in UTF-8 JSON bytes.
;; It also counts a list's items for the endpoint's trace (countObjects, below).
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
    (i32.const -1))

  ;; What countObjects leaves for its next call when the text ends first: the objects opened in this call, the
  ;; depth, and the string state (bit 0: in a string, bit 1: the next byte is escaped).
  (global $count (export "count") (mut i32) (i32.const 0))
  (global $depthOut (export "depth") (mut i32) (i32.const 0))
  (global $stateOut (export "state") (mut i32) (i32.const 0))

  ;; Counts the objects an array holds, reading its contents from $from (just past its `[`, or where the last call
  ;; stopped: $depth and $state are what that call left) to $n. Returns the index just past the closer that ends
  ;; the array (a `]` or `}` at depth 0), or -1 when the text ends first. The same answer as count-objects.ts,
  ;; the reference: an object counts when its `{` opens at depth 0; closers are counted, not matched.
  ;; 64 bytes at a time, as four 16-byte vectors whose compares make 64-bit masks: the unescaped quotes' mask,
  ;; XORed as a prefix, marks what lies inside strings; the brackets outside them only move the depth, unless it
  ;; may reach 0 in the window: then they are read one by one. The last bytes (under 64), and a window with a
  ;; backslash outside a string (not JSON), are read byte by byte, as the reference reads them.
  ;; (`{` and `[` are 0x7b and 0x5b, `}` and `]` 0x7d and 0x5d: OR 0x20 makes each pair one byte.)
  (func (export "countObjects") (param $from i32) (param $n i32) (param $depth i32) (param $state i32) (result i32)
    (local $i i32) (local $end i32) (local $c i32) (local $inString i32) (local $escape i32) (local $objects i32)
    (local $v0 v128) (local $v1 v128) (local $v2 v128) (local $v3 v128)
    (local $backslash i64) (local $escaped i64) (local $carry i32) (local $s i64) (local $open i64) (local $close i64)
    (local $bits i64) (local $bit i64)
    (local.set $i (local.get $from))
    (local.set $inString (i32.and (local.get $state) (i32.const 1)))
    (local.set $escape (i32.and (i32.shr_u (local.get $state) (i32.const 1)) (i32.const 1)))
    (block $tail
      (loop $window
        (br_if $tail (i32.lt_u (i32.sub (local.get $n) (local.get $i)) (i32.const 64)))
        (local.set $v0 (v128.load (local.get $i)))
        (local.set $v1 (v128.load offset=16 (local.get $i)))
        (local.set $v2 (v128.load offset=32 (local.get $i)))
        (local.set $v3 (v128.load offset=48 (local.get $i)))
        ;; Bit k of $escaped: byte $i+k is escaped, by a backslash before it not escaped itself (bit 0: by the last
        ;; window's; $carry: the next window's first byte is). Backslashes are few: one by one.
        (local.set $backslash (i64.or (i64.or (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v0) (i8x16.splat (i32.const 0x5c)))))
            (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v1) (i8x16.splat (i32.const 0x5c))))) (i64.const 16)))
          (i64.or (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v2) (i8x16.splat (i32.const 0x5c))))) (i64.const 32))
            (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v3) (i8x16.splat (i32.const 0x5c))))) (i64.const 48)))))
        (local.set $escaped (i64.extend_i32_u (local.get $escape)))
        (local.set $carry (i32.const 0))
        (local.set $bits (local.get $backslash))
        (block $escapes_done
          (loop $escapes
            (br_if $escapes_done (i64.eqz (local.get $bits)))
            (local.set $bit (i64.shl (i64.const 1) (i64.ctz (local.get $bits))))
            (if (i64.eqz (i64.and (local.get $escaped) (local.get $bit)))
              (then
                (local.set $escaped (i64.or (local.get $escaped) (i64.shl (local.get $bit) (i64.const 1))))
                ;; The window's last byte: it escapes the next window's first.
                (if (i64.lt_s (local.get $bit) (i64.const 0)) (then (local.set $carry (i32.const 1))))))
            (local.set $bits (i64.and (local.get $bits) (i64.sub (local.get $bits) (i64.const 1))))
            (br $escapes)))
        ;; Bit k of $s: byte $i+k is inside a string (its opening quote included, its closing one not).
        (local.set $s (i64.and (i64.or (i64.or (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v0) (i8x16.splat (i32.const 0x22)))))
            (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v1) (i8x16.splat (i32.const 0x22))))) (i64.const 16)))
          (i64.or (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v2) (i8x16.splat (i32.const 0x22))))) (i64.const 32))
            (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v3) (i8x16.splat (i32.const 0x22))))) (i64.const 48))))
          (i64.xor (local.get $escaped) (i64.const -1))))
        (local.set $s (i64.xor (local.get $s) (i64.shl (local.get $s) (i64.const 1))))
        (local.set $s (i64.xor (local.get $s) (i64.shl (local.get $s) (i64.const 2))))
        (local.set $s (i64.xor (local.get $s) (i64.shl (local.get $s) (i64.const 4))))
        (local.set $s (i64.xor (local.get $s) (i64.shl (local.get $s) (i64.const 8))))
        (local.set $s (i64.xor (local.get $s) (i64.shl (local.get $s) (i64.const 16))))
        (local.set $s (i64.xor (local.get $s) (i64.shl (local.get $s) (i64.const 32))))
        (if (local.get $inString) (then (local.set $s (i64.xor (local.get $s) (i64.const -1)))))
        ;; A backslash outside a string escapes nothing. The first one is found so: every backslash before it was
        ;; in a string, so the strings are right up to it. Such a window is read byte by byte.
        (if (i64.ne (i64.and (local.get $backslash) (i64.xor (local.get $s) (i64.const -1))) (i64.const 0))
          (then
            (local.set $end (i32.add (local.get $i) (i32.const 64)))
            (loop $byte
              (if (i32.lt_u (local.get $i) (local.get $end))
                (then
                  (local.set $c (i32.load8_u (local.get $i)))
                  (local.set $i (i32.add (local.get $i) (i32.const 1)))
                  (if (local.get $inString)
                    (then
                      (if (local.get $escape)
                        (then (local.set $escape (i32.const 0)))
                        (else
                          (if (i32.eq (local.get $c) (i32.const 0x5c))
                            (then (local.set $escape (i32.const 1)))
                            (else
                              (if (i32.eq (local.get $c) (i32.const 0x22))
                                (then (local.set $inString (i32.const 0)))))))))
                    (else
                      (if (i32.eq (local.get $c) (i32.const 0x22))
                        (then (local.set $inString (i32.const 1)))
                        (else
                          (if (i32.eq (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x7b))
                            (then
                              (if (i32.and (i32.eqz (local.get $depth)) (i32.eq (local.get $c) (i32.const 0x7b)))
                                (then (local.set $objects (i32.add (local.get $objects) (i32.const 1)))))
                              (local.set $depth (i32.add (local.get $depth) (i32.const 1))))
                            (else
                              (if (i32.eq (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x7d))
                                (then
                                  (if (i32.eqz (local.get $depth))
                                    (then
                                      (global.set $count (local.get $objects))
                                      (return (local.get $i))))
                                  (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))))))))))
                  (br $byte))))
            (br $window)))
        (local.set $escape (local.get $carry))
        (local.set $inString (i32.wrap_i64 (i64.shr_u (local.get $s) (i64.const 63))))
        (local.set $s (i64.xor (local.get $s) (i64.const -1)))
        (local.set $open (i64.and (local.get $s) (i64.or (i64.or (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (v128.or (local.get $v0) (i8x16.splat (i32.const 0x20))) (i8x16.splat (i32.const 0x7b)))))
            (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (v128.or (local.get $v1) (i8x16.splat (i32.const 0x20))) (i8x16.splat (i32.const 0x7b))))) (i64.const 16)))
          (i64.or (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (v128.or (local.get $v2) (i8x16.splat (i32.const 0x20))) (i8x16.splat (i32.const 0x7b))))) (i64.const 32))
            (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (v128.or (local.get $v3) (i8x16.splat (i32.const 0x20))) (i8x16.splat (i32.const 0x7b))))) (i64.const 48))))))
        (local.set $close (i64.and (local.get $s) (i64.or (i64.or (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (v128.or (local.get $v0) (i8x16.splat (i32.const 0x20))) (i8x16.splat (i32.const 0x7d)))))
            (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (v128.or (local.get $v1) (i8x16.splat (i32.const 0x20))) (i8x16.splat (i32.const 0x7d))))) (i64.const 16)))
          (i64.or (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (v128.or (local.get $v2) (i8x16.splat (i32.const 0x20))) (i8x16.splat (i32.const 0x7d))))) (i64.const 32))
            (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (v128.or (local.get $v3) (i8x16.splat (i32.const 0x20))) (i8x16.splat (i32.const 0x7d))))) (i64.const 48))))))
        (if (i64.gt_u (i64.extend_i32_u (local.get $depth)) (i64.popcnt (local.get $close)))
          (then
            ;; The depth stays above 0 before every bracket here: none opens an object of the array or ends it.
            (local.set $depth (i32.wrap_i64 (i64.sub
              (i64.add (i64.extend_i32_u (local.get $depth)) (i64.popcnt (local.get $open)))
              (i64.popcnt (local.get $close))))))
          (else
            (local.set $bits (i64.or (local.get $open) (local.get $close)))
            ;; Only `{`, not `[`, opens an object: the open brackets that are braces.
            (local.set $open (i64.and (local.get $open) (i64.or (i64.or (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v0) (i8x16.splat (i32.const 0x7b)))))
            (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v1) (i8x16.splat (i32.const 0x7b))))) (i64.const 16)))
          (i64.or (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v2) (i8x16.splat (i32.const 0x7b))))) (i64.const 32))
            (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v3) (i8x16.splat (i32.const 0x7b))))) (i64.const 48))))))
            (block $read
              (loop $bracket
                (br_if $read (i64.eqz (local.get $bits)))
                (local.set $bit (i64.shl (i64.const 1) (i64.ctz (local.get $bits))))
                (if (i64.eqz (i64.and (local.get $close) (local.get $bit)))
                  (then
                    (if (i32.and (i32.eqz (local.get $depth)) (i64.ne (i64.and (local.get $open) (local.get $bit)) (i64.const 0)))
                      (then (local.set $objects (i32.add (local.get $objects) (i32.const 1)))))
                    (local.set $depth (i32.add (local.get $depth) (i32.const 1))))
                  (else
                    (if (i32.eqz (local.get $depth))
                      (then
                        (global.set $count (local.get $objects))
                        (return (i32.add (i32.add (local.get $i) (i32.wrap_i64 (i64.ctz (local.get $bits)))) (i32.const 1)))))
                    (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))))
                ;; Clear the lowest set bit: the next bracket.
                (local.set $bits (i64.and (local.get $bits) (i64.sub (local.get $bits) (i64.const 1))))
                (br $bracket)))))
        (local.set $i (i32.add (local.get $i) (i32.const 64)))
        (br $window)))
    ;; The last bytes, one by one.
    (block $text_ends
      (loop $byte
        (br_if $text_ends (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $c (i32.load8_u (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (if (local.get $inString)
          (then
            (if (local.get $escape)
              (then (local.set $escape (i32.const 0)))
              (else
                (if (i32.eq (local.get $c) (i32.const 0x5c))
                  (then (local.set $escape (i32.const 1)))
                  (else
                    (if (i32.eq (local.get $c) (i32.const 0x22))
                      (then (local.set $inString (i32.const 0)))))))))
          (else
            (if (i32.eq (local.get $c) (i32.const 0x22))
              (then (local.set $inString (i32.const 1)))
              (else
                (if (i32.eq (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x7b))
                  (then
                    (if (i32.and (i32.eqz (local.get $depth)) (i32.eq (local.get $c) (i32.const 0x7b)))
                      (then (local.set $objects (i32.add (local.get $objects) (i32.const 1)))))
                    (local.set $depth (i32.add (local.get $depth) (i32.const 1))))
                  (else
                    (if (i32.eq (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x7d))
                      (then
                        (if (i32.eqz (local.get $depth))
                          (then
                            (global.set $count (local.get $objects))
                            (return (local.get $i))))
                        (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))))))))))
        (br $byte)))
    (global.set $count (local.get $objects))
    (global.set $depthOut (local.get $depth))
    (global.set $stateOut (i32.or (local.get $inString) (i32.shl (local.get $escape) (i32.const 1))))
    (i32.const -1))
)
