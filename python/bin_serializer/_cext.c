/* bin_serializer._cext: the compiled codec.
 *
 * The Python package turns a schema (dataclass hints) into a tree of nodes
 * (_schema.py); _accel.py flattens that tree into a table of plan entries,
 * and this module turns the table into C structs (Program) and walks them to
 * encode and decode. There is no schema logic here: every decision (layout,
 * padding, count bounds, which class to build) is taken in Python and handed
 * over as numbers and objects.
 *
 * Failure contract (the same as the generated Python fast path): on malformed
 * input or an unencodable value any exception is raised (usually the private
 * _Fail). The caller then runs the pure-Python reference interpreter, which
 * raises the precise DecodeError / EncodeError. So this code only has to
 * reject exactly the inputs the reference rejects, never explain why.
 *
 * Allocation is bounded like the reference: a count prefix is checked
 * against the bytes left (count <= left / min_element_size) before anything
 * is allocated for it.
 *
 * The compact format is the portable one with varints: plans flagged
 * F_VARINT read and write their integer (scalars, enums; the size says 2, 4
 * or 8 bytes), their count prefix (str, bytes, list, map, set: 64-bit) or
 * their index (variant: 32-bit) as an unsigned LEB128 varint, signed
 * integers zigzag-encoded.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#if PY_VERSION_HEX < 0x030B0000
#include <longintrepr.h>
#endif
#include <math.h>
#include <stdatomic.h>
#include <string.h>
#include <stdint.h>

#if PY_VERSION_HEX < 0x030B0000
#define PyFloat_Pack4 _PyFloat_Pack4
#define PyFloat_Pack8 _PyFloat_Pack8
#define PyFloat_Unpack4 _PyFloat_Unpack4
#define PyFloat_Unpack8 _PyFloat_Unpack8
#endif

/* Plan kinds: keep in sync with _accel.py. */
enum {
  K_SCALAR = 0,
  K_BOOL = 1,
  K_ENUM = 2,
  K_FLAG = 3,
  K_BITSET = 4,
  K_STR = 5,
  K_BYTES = 6,
  K_LIST = 7,
  K_ARRAY = 8,
  K_OPTIONAL = 9,
  K_VARIANT = 10,
  K_MONOSTATE = 11,
  K_TUPLE = 12,
  K_MAP = 13,
  K_SET = 14,
  K_STRUCT = 15,
  K_EVOLVABLE = 16,
  K_COUNT
};

/* Plan flags. */
enum {
  F_TUPLE = 1,       /* list/array container is a tuple */
  F_FROZEN = 2,      /* set: a frozenset; slotted struct: a frozen dataclass */
  F_TAGGED = 4,      /* variant values are Variant(index, value) */
  F_PADDED = 8,      /* struct: native memory image, fields at offsets, size bytes */
  F_FASTNEW = 16,    /* struct: build with object.__new__ + attribute stores */
  F_NDARRAY = 32,    /* list/array of numbers as a numpy array */
  F_SLOTS = 64,      /* struct: every field is a __slots__ member at slot_at[i] */
  F_RECURSIVE = 128, /* struct: contains itself (guard the C stack) */
  F_VARINT = 256,    /* compact: the integer / count prefix / variant index is a varint */
};

typedef struct Plan {
  int kind;
  int flags;
  char code;       /* scalar / enum struct code */
  Py_ssize_t size; /* scalar, bitset: bytes; padded struct: total size */
  Py_ssize_t n;    /* array: length; bitset: bits; struct: fields */
  Py_ssize_t per;  /* count bound per element (>= 1) */
  Py_ssize_t nkids;
  struct Plan** kids;
  Py_ssize_t* offsets; /* padded struct: field offsets */
  Py_ssize_t* order;   /* struct built by calling the class: field index of each argument */
  Py_ssize_t npos;     /* ... of which the first npos are positional */
  Py_ssize_t* slot_at; /* F_SLOTS: byte offset of each field's slot in the instance */
  int plain_slots;     /* F_SLOTS + F_FASTNEW, no __dict__, allocated by PyType_GenericAlloc,
                          every base below object a heap type: the instance is its header and
                          its pointer slots, and refers to them and its class, nothing else */
  PyObject* o[6];      /* kind-specific objects (see _accel.py) */
} Plan;

/* Module globals, set once by init(). */
static PyObject* Fail;         /* the private exception */
static PyObject* VariantCls;   /* types.Variant */
static PyObject* MonostateObj; /* types.Monostate() */
static PyObject* NdFrom;       /* fn(buf, dtype, n, pos) -> ndarray */
static PyObject* AsList;       /* fn(value) -> list/tuple */
static PyObject* SetOrder;     /* fn(set) -> list in encoding order */
static PyObject* Trailing;     /* raised by decode() with the end position */
static PyObject* EmptyTuple;

#define FAIL_NULL()      \
  do {                   \
    PyErr_SetNone(Fail); \
    return NULL;         \
  } while (0)
#define FAIL_INT()       \
  do {                   \
    PyErr_SetNone(Fail); \
    return -1;           \
  } while (0)

/* ---------------------------------------------------------------------------------------------
 * little-endian loads and stores */

static inline uint64_t ld_le(const uint8_t* p, int size) {
  uint64_t x = 0;
#if PY_LITTLE_ENDIAN
  memcpy(&x, p, (size_t)size);
#else
  for (int i = size - 1; i >= 0; --i) x = (x << 8) | p[i];
#endif
  return x;
}

static inline void st_le(uint8_t* p, uint64_t x, int size) {
#if PY_LITTLE_ENDIAN
  memcpy(p, &x, (size_t)size);
#else
  for (int i = 0; i < size; ++i) p[i] = (uint8_t)(x >> (8 * i));
#endif
}

static PyObject* load_scalar(char code, const uint8_t* p) {
  switch (code) {
  case 'B': return PyLong_FromLong(p[0]);
  case 'b': return PyLong_FromLong((int8_t)p[0]);
  case 'H': return PyLong_FromLong((long)(uint16_t)ld_le(p, 2));
  case 'h': return PyLong_FromLong((int16_t)(uint16_t)ld_le(p, 2));
  case 'I': return PyLong_FromUnsignedLong((unsigned long)(uint32_t)ld_le(p, 4));
  case 'i': return PyLong_FromLong((int32_t)(uint32_t)ld_le(p, 4));
  case 'Q': return PyLong_FromUnsignedLongLong(ld_le(p, 8));
  case 'q': return PyLong_FromLongLong((int64_t)ld_le(p, 8));
  case 'f': {
#if PY_LITTLE_ENDIAN && defined(__STDC_IEC_559__)
    float f;
    memcpy(&f, p, 4);
    if (f == f) return PyFloat_FromDouble((double)f); /* NaNs: as the struct module reads them */
#endif
    double d = PyFloat_Unpack4((const char*)p, 1);
    if (d == -1.0 && PyErr_Occurred()) return NULL;
    return PyFloat_FromDouble(d);
  }
  case 'd': {
#if PY_LITTLE_ENDIAN && defined(__STDC_IEC_559__)
    double x;
    memcpy(&x, p, 8);
    if (x == x) return PyFloat_FromDouble(x);
#endif
    double d = PyFloat_Unpack8((const char*)p, 1);
    if (d == -1.0 && PyErr_Occurred()) return NULL;
    return PyFloat_FromDouble(d);
  }
  }
  PyErr_SetString(PyExc_SystemError, "bin_serializer._cext: bad scalar code");
  return NULL;
}

/* The value of an int that fits in one internal digit (most field values),
 * without a call; 0 when it does not. */
static inline int small_long(PyObject* v, long long* out) {
#if PY_VERSION_HEX >= 0x030C0000
  if (!PyUnstable_Long_IsCompact((PyLongObject*)v)) return 0;
  *out = (long long)PyUnstable_Long_CompactValue((PyLongObject*)v);
  return 1;
#else
  Py_ssize_t size = Py_SIZE(v);
  if (size < -1 || size > 1) return 0;
  *out = size * (long long)((PyLongObject*)v)->ob_digit[0];
  return 1;
#endif
}

/* An integer that passed its range check, stored with a constant width. */
static inline int store_int(char code, long long x, uint8_t* p) {
  switch (code) {
  case 'B':
    if ((unsigned long long)x > 0xFFu) FAIL_INT();
    p[0] = (uint8_t)x;
    return 0;
  case 'b':
    if (x < -0x80 || x > 0x7F) FAIL_INT();
    p[0] = (uint8_t)x;
    return 0;
  case 'H':
    if ((unsigned long long)x > 0xFFFFu) FAIL_INT();
    st_le(p, (uint64_t)x, 2);
    return 0;
  case 'h':
    if (x < -0x8000 || x > 0x7FFF) FAIL_INT();
    st_le(p, (uint64_t)x, 2);
    return 0;
  case 'I':
    if ((unsigned long long)x > 0xFFFFFFFFu) FAIL_INT();
    st_le(p, (uint64_t)x, 4);
    return 0;
  case 'i':
    if (x < -0x80000000LL || x > 0x7FFFFFFFLL) FAIL_INT();
    st_le(p, (uint64_t)x, 4);
    return 0;
  case 'Q':
    if (x < 0) FAIL_INT();
    st_le(p, (uint64_t)x, 8);
    return 0;
  default: /* 'q' */ st_le(p, (uint64_t)x, 8); return 0;
  }
}

/* Stores v as `code` (struct-module semantics: integers via __index__ and
 * range-checked, floats via __float__, f32 overflow refused). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int
store_scalar_slow(char code, PyObject* v, uint8_t* p) {
  if (code == 'd' || code == 'f') {
    double d = PyFloat_CheckExact(v) ? PyFloat_AS_DOUBLE(v) : PyFloat_AsDouble(v);
    if (d == -1.0 && PyErr_Occurred()) return -1;
#if PY_LITTLE_ENDIAN && defined(__STDC_IEC_559__)
    if (d == d) { /* not NaN: what PyFloat_Pack4/8 do on an IEEE little-endian host */
      if (code == 'd') {
        memcpy(p, &d, 8);
        return 0;
      }
      float f = (float)d;
      if (isinf(f) && !isinf(d)) FAIL_INT(); /* too large for f32 (struct raises OverflowError) */
      memcpy(p, &f, 4);
      return 0;
    }
#endif
    return code == 'd' ? PyFloat_Pack8(d, (char*)p, 1) : PyFloat_Pack4(d, (char*)p, 1);
  }
  int overflow = 0;
  long long x;
  if (PyLong_Check(v)) { /* the common case (int, bool, IntEnum): no __index__, no new reference */
    if (small_long(v, &x)) return store_int(code, x, p);
    x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (!overflow) return store_int(code, x, p);
    if (code != 'Q') FAIL_INT();
  }
  PyObject* idx = v;
  if (!PyLong_Check(v)) {
    if (!PyIndex_Check(v)) FAIL_INT();
    idx = PyNumber_Index(v);
    if (idx == NULL) return -1;
  } else {
    Py_INCREF(idx);
  }
  if (code == 'Q') {
    unsigned long long u = PyLong_AsUnsignedLongLong(idx);
    Py_DECREF(idx);
    if (u == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    st_le(p, u, 8);
    return 0;
  }
  x = PyLong_AsLongLongAndOverflow(idx, &overflow);
  Py_DECREF(idx);
  if (x == -1 && PyErr_Occurred()) return -1;
  if (overflow) FAIL_INT();
  return store_int(code, x, p);
}

/* The hot path of store_scalar_slow: exact floats that are not NaN, and ints
 * of one internal digit; everything else takes the general path. */
static inline int store_scalar(char code, PyObject* v, uint8_t* p) {
#if PY_LITTLE_ENDIAN && defined(__STDC_IEC_559__)
  if (code == 'd' || code == 'f') {
    if (PyFloat_CheckExact(v)) {
      double d = PyFloat_AS_DOUBLE(v);
      if (d == d) {
        if (code == 'd') {
          memcpy(p, &d, 8);
          return 0;
        }
        float f = (float)d;
        if (!isinf(f) || isinf(d)) {
          memcpy(p, &f, 4);
          return 0;
        }
      }
    }
    return store_scalar_slow(code, v, p);
  }
#endif
  long long x;
  if (PyLong_CheckExact(v) && small_long(v, &x)) return store_int(code, x, p);
  return store_scalar_slow(code, v, p);
}

/* ---------------------------------------------------------------------------------------------
 * compact varints */

static inline int signed_code(char code) { return code == 'h' || code == 'i' || code == 'q'; }

#if defined(__GNUC__) || defined(__clang__)
#define VARINT_INLINE inline __attribute__((always_inline))
#else
#define VARINT_INLINE inline
#endif

static inline int varint_ctz64(uint64_t x) { /* x != 0 */
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_ctzll(x);
#else
  int n = 0;
  while (!(x & 1)) x >>= 1, ++n;
  return n;
#endif
}

/* The 7-bit groups of v (one a byte, high bits clear) packed together. */
static inline uint64_t varint_pack7(uint64_t v) {
  v = (v & 0x007F007F007F007FULL) | ((v & 0x7F007F007F007F00ULL) >> 1);
  v = (v & 0x00003FFF00003FFFULL) | ((v & 0x3FFF00003FFF0000ULL) >> 2);
  return (v & 0x000000000FFFFFFFULL) | ((v & 0x0FFFFFFF00000000ULL) >> 4);
}

/* The varint at *ppos of an integer of `size` bytes (2, 4, 8): at most 3, 5
 * or 10 bytes, no bit beyond the width in the last one, shortest form only
 * (a varint of 2 or more bytes does not end in 0x00). Byte by byte: the
 * reference read_varint's word path must agree with. */
static int read_varint_bytes(const uint8_t* buf, Py_ssize_t end, Py_ssize_t* ppos, Py_ssize_t size,
                             uint64_t* out) {
  Py_ssize_t pos = *ppos;
  const int maxlen = size == 2 ? 3 : size == 4 ? 5 : 10;
  const unsigned last = size == 2 ? 0x03u : size == 4 ? 0x0Fu : 0x01u;
  uint64_t x = 0;
  for (int i = 0; i < maxlen; ++i) {
    if (pos + i >= end) FAIL_INT();
    uint8_t b = buf[pos + i];
    if (i == maxlen - 1 && b > last) FAIL_INT();
    x |= (uint64_t)(b & 0x7Fu) << (7 * i);
    if (b < 0x80) {
      if (i > 0 && b == 0) FAIL_INT();
      *out = x;
      *ppos = pos + i + 1;
      return 0;
    }
  }
  FAIL_INT();
}

/* end bounds the varint; lim (>= end) bounds what may be read: with 8 bytes
 * readable, a varint of up to 8 bytes is decoded from one 8-byte load. The
 * word path accepts only what the byte loop below accepts, with the same
 * value: within end, shortest form (a varint of 2 or more bytes does not end
 * in 0x00), and a value that fits `size` bytes (for a varint no longer than
 * the width's maximum, that is the same as the last byte's limit; a longer
 * one in shortest form never fits). Anything else takes the loop, which
 * fails it. */
static VARINT_INLINE int read_varint(const uint8_t* buf, Py_ssize_t end, Py_ssize_t lim,
                                     Py_ssize_t* ppos, Py_ssize_t size, uint64_t* out) {
  Py_ssize_t pos = *ppos;
  if (pos < end && buf[pos] < 0x80) { /* one byte: most values */
    *out = buf[pos];
    *ppos = pos + 1;
    return 0;
  }
  if (pos < end && lim - pos >= 8) {
    uint64_t w = ld_le(buf + pos, 8);
    uint64_t stops = ~w & 0x8080808080808080ULL;
    if (stops != 0) {
      int bits = varint_ctz64(stops) + 1; /* 8 * the varint's length (2..8 bytes) */
      uint64_t v = w & (~0ULL >> (64 - bits));
      uint64_t x = varint_pack7(v & 0x7F7F7F7F7F7F7F7FULL);
      if (pos + (bits >> 3) <= end && (bits == 8 || (v >> (bits - 8)) != 0) &&
          (size == 8 || (x >> (8 * size)) == 0)) {
        *out = x;
        *ppos = pos + (bits >> 3);
        return 0;
      }
    } else if (size == 8 && pos + 9 <= end) { /* 9 or 10 bytes */
      uint64_t x = varint_pack7(w & 0x7F7F7F7F7F7F7F7FULL);
      unsigned b8 = buf[pos + 8];
      if (b8 != 0 && b8 < 0x80) {
        *out = x | ((uint64_t)b8 << 56);
        *ppos = pos + 9;
        return 0;
      }
      if (b8 >= 0x80 && pos + 10 <= end && buf[pos + 9] == 1) {
        *out = x | ((uint64_t)(b8 & 0x7Fu) << 56) | (1ULL << 63);
        *ppos = pos + 10;
        return 0;
      }
    }
  }
  return read_varint_bytes(buf, end, ppos, size, out);
}

/* The int of a decoded varint of scalar `code` (signed: zigzag). */
static inline PyObject* varint_value(char code, uint64_t u) {
  if (signed_code(code)) return PyLong_FromLongLong((int64_t)(u >> 1) ^ -(int64_t)(u & 1));
  if (u <= (uint64_t)LONG_MAX) return PyLong_FromLong((long)u);
  return PyLong_FromUnsignedLongLong(u);
}

/* ---------------------------------------------------------------------------------------------
 * decoding */

typedef struct {
  PyObject* obj; /* the buffer object (numpy views are made from it) */
  const uint8_t* buf;
  Py_ssize_t end; /* what the value being decoded may use */
  Py_ssize_t lim; /* what may be read (>= end; the buffer's end) */
  int untrack;    /* log_blocks(untracked=True): see construct */
} Ctx;

static PyObject* dec(const Plan* p, Ctx* c, Py_ssize_t* ppos);

/* A number (K_SCALAR): inlined where fields are decoded (dec_struct), so
 * that the commonest field costs no call of dec. */
static VARINT_INLINE PyObject* dec_scalar(const Plan* p, Ctx* c, Py_ssize_t* ppos) {
  Py_ssize_t pos = *ppos;
  if (p->flags & F_VARINT) {
    uint64_t u;
    if (read_varint(c->buf, c->end, c->lim, ppos, p->size, &u) < 0) return NULL;
    return varint_value(p->code, u);
  }
  if (c->end - pos < p->size) FAIL_NULL();
  *ppos = pos + p->size;
  return load_scalar(p->code, c->buf + pos);
}

static inline int read_count(Ctx* c, Py_ssize_t* ppos, Py_ssize_t per, Py_ssize_t* out,
                             int varint) {
  Py_ssize_t pos = *ppos;
  uint64_t n;
  if (varint) {
    if (read_varint(c->buf, c->end, c->lim, &pos, 8, &n) < 0) return -1;
  } else {
    if (c->end - pos < 8) FAIL_INT();
    n = ld_le(c->buf + pos, 8);
    pos += 8;
  }
  uint64_t left = (uint64_t)(c->end - pos);
  if (n > left / (uint64_t)per) FAIL_INT();
  *out = (Py_ssize_t)n;
  *ppos = pos;
  return 0;
}

/* numpy arrays (F_NDARRAY): o[0] dtype, o[1] element spec, o[2] fn(value,
 * dtype, spec) -> bytes; size = bytes per element. */
static PyObject* dec_ndarray(const Plan* p, Ctx* c, Py_ssize_t* ppos, Py_ssize_t n) {
  Py_ssize_t esize = p->size;
  if (n > (c->end - *ppos) / (esize ? esize : 1)) FAIL_NULL();
  PyObject* r = PyObject_CallFunction(NdFrom, "OOnn", c->obj, p->o[0], n, *ppos);
  if (r) *ppos += n * esize;
  return r;
}

/* Elements of a list/array/set: n decodes into a new list or tuple. */
/* Puts a new element into the tuple or list dec_seq is filling (steals x). */
static inline void seq_set(PyObject* r, int as_tuple, Py_ssize_t i, PyObject* x) {
  if (as_tuple)
    PyTuple_SET_ITEM(r, i, x);
  else
    PyList_SET_ITEM(r, i, x);
}

static PyObject* dec_seq(const Plan* elem, Ctx* c, Py_ssize_t* ppos, Py_ssize_t n, int as_tuple) {
  PyObject* r = as_tuple ? PyTuple_New(n) : PyList_New(n);
  if (r == NULL) return NULL;
  if (elem->kind == K_SCALAR && (elem->flags & F_VARINT)) { /* compact integers: a varint loop */
    Py_ssize_t pos = *ppos;
    for (Py_ssize_t i = 0; i < n; ++i) {
      uint64_t u;
      PyObject* x = read_varint(c->buf, c->end, c->lim, &pos, elem->size, &u) < 0
                        ? NULL
                        : varint_value(elem->code, u);
      if (x == NULL) {
        Py_DECREF(r);
        return NULL;
      }
      seq_set(r, as_tuple, i, x);
    }
    *ppos = pos;
    return r;
  }
  if (elem->kind == K_SCALAR) { /* numbers: no recursion, one bounds check */
    Py_ssize_t sz = elem->size;
    if (n > (c->end - *ppos) / sz) {
      Py_DECREF(r);
      FAIL_NULL();
    }
    const uint8_t* q = c->buf + *ppos;
    for (Py_ssize_t i = 0; i < n; ++i, q += sz) {
      PyObject* x = load_scalar(elem->code, q);
      if (x == NULL) {
        Py_DECREF(r);
        return NULL;
      }
      seq_set(r, as_tuple, i, x);
    }
    *ppos += n * sz;
    return r;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* x = dec(elem, c, ppos);
    if (x == NULL) {
      Py_DECREF(r);
      return NULL;
    }
    seq_set(r, as_tuple, i, x);
  }
  return r;
}

/* The class of the frozen slotted dataclasses construct() may leave
 * untracked that a field of plan k holds (k itself, or the value of an
 * optional), else NULL. */
static PyTypeObject* frozen_record_class(const Plan* k) {
  if (k->kind == K_OPTIONAL && k->nkids == 1) k = k->kids[0];
  if (k->kind == K_STRUCT && (k->flags & F_FROZEN) && k->plain_slots) return (PyTypeObject*)k->o[0];
  return NULL;
}

/* Whether field value v (decoded by plan k) can never become part of a
 * reference cycle: it is no object of the collector (int, float, str,
 * bytes, None, a numeric ndarray), or it is untracked and stays so. That
 * holds for a tuple (CPython never tracks one again) and for a frozen
 * record construct() left untracked; not for an untracked dict (CPython
 * tracks it again when a container is stored in it) or any other such
 * object, which a holder must keep tracked: else the holder, unseen by
 * the collector, would keep a cycle through it alive. */
static inline int settled(PyObject* v, const Plan* k) {
  if (!PyType_IS_GC(Py_TYPE(v))) return 1;
  if (PyObject_GC_IsTracked(v)) return 0;
  return PyTuple_CheckExact(v) || Py_TYPE(v) == frozen_record_class(k);
}

/* Builds the struct instance from its field values. The fast paths move
 * each value into the instance (vals[i] becomes NULL: one reference, no
 * increment and decrement per field); a call to the class borrows them. The
 * caller releases whatever is left in vals. */
static PyObject* construct(const Plan* p, PyObject** vals, int untrack) {
  PyObject* cls = p->o[0];
  Py_ssize_t n = p->n;
  if ((p->flags & (F_FASTNEW | F_SLOTS)) == (F_FASTNEW | F_SLOTS)) {
    /* __slots__ dataclass: the instance is its slots (NULL after tp_alloc); fill them in place */
    PyTypeObject* tp = (PyTypeObject*)cls;
    if (!p->plain_slots) {
      PyObject* obj = tp->tp_alloc(tp, 0);
      if (obj == NULL) return NULL;
      for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject** slot = (PyObject**)((char*)obj + p->slot_at[i]);
        Py_XSETREF(*slot, vals[i]);
        vals[i] = NULL;
      }
      return obj;
    }
    /* What PyType_GenericAlloc does (an object of the collector, its slots
     * NULL, a reference to its class), tracked once its slots are filled,
     * and only when it must be. A frozen dataclass (F_FROZEN) refuses every
     * store: one whose referents besides its class can never become part
     * of a cycle (see settled) never will be, and is left untracked, as
     * CPython leaves a tuple of such values. Others are tracked unless the
     * log reader's untracked=True asks (an opt-in, like msgspec's
     * Struct(gc=False)), which looks at what is tracked now (and at dicts,
     * containers even while untracked): nothing
     * re-tracks them, so a cycle built through one later is not collected
     * (a leak, not a crash). */
    PyObject* obj = PyObject_GC_New(PyObject, tp);
    if (obj == NULL) return NULL;
    for (Py_ssize_t at = (Py_ssize_t)sizeof(PyObject); at < tp->tp_basicsize;
         at += (Py_ssize_t)sizeof(PyObject*))
      *(PyObject**)((char*)obj + at) = NULL;
    const int frozen = (p->flags & F_FROZEN) != 0;
    int tracked = frozen ? 0 : !untrack;
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* v = vals[i];
      if (!tracked) /* once tracked (a mutable record without the opt-in: from the start), settled */
        tracked = frozen ? !settled(v, p->kids[i])
                         : /* a dict is a container, even when untracked */
                      PyType_IS_GC(Py_TYPE(v)) && (PyObject_GC_IsTracked(v) || PyDict_Check(v));
      *(PyObject**)((char*)obj + p->slot_at[i]) = v;
      vals[i] = NULL;
    }
    if (tracked) PyObject_GC_Track(obj);
    return obj;
  }
  if (p->flags & F_FASTNEW) {
    PyObject* obj = PyBaseObject_Type.tp_new((PyTypeObject*)cls, EmptyTuple, NULL);
    if (obj == NULL) return NULL;
    PyObject* names = p->o[1];
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (PyObject_GenericSetAttr(obj, PyTuple_GET_ITEM(names, i), vals[i]) < 0) {
        Py_DECREF(obj);
        return NULL;
      }
    }
    return obj;
  }
  PyObject* stack[64] = {NULL};
  PyObject** args = stack;
  if (n > 64) {
    args = PyMem_Malloc(sizeof(PyObject*) * (size_t)n);
    if (args == NULL) return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < n; ++i) args[i] = vals[p->order[i]];
  PyObject* kwnames = p->o[2] == Py_None ? NULL : p->o[2];
  PyObject* r = PyObject_Vectorcall(cls, args, (size_t)p->npos, kwnames);
  if (args != stack) PyMem_Free(args);
  return r;
}

static void decref_vals(PyObject** vals, Py_ssize_t n) {
  for (Py_ssize_t i = 0; i < n; ++i) Py_XDECREF(vals[i]);
}

static PyObject* dec_struct(const Plan* p, Ctx* c, Py_ssize_t* ppos) {
  Py_ssize_t n = p->n;
  PyObject* stack[32];
  PyObject** vals = stack;
  if (n > 32) {
    vals = PyMem_Malloc((size_t)n * sizeof(PyObject*));
    if (vals == NULL) return PyErr_NoMemory();
  }
  PyObject* r = NULL;
  Py_ssize_t got = 0; /* vals[0, got) hold references */
  if (p->flags & F_PADDED) {
    Py_ssize_t base = *ppos;
    if (c->end - base < p->size) {
      PyErr_SetNone(Fail);
      goto done;
    }
    for (; got < n; ++got) {
      Py_ssize_t at = base + p->offsets[got];
      if ((vals[got] = dec(p->kids[got], c, &at)) == NULL) goto done;
    }
    *ppos = base + p->size;
  } else {
    for (; got < n; ++got) {
      const Plan* k = p->kids[got];
      vals[got] = k->kind == K_SCALAR ? dec_scalar(k, c, ppos) : dec(k, c, ppos);
      if (vals[got] == NULL) goto done;
    }
  }
  r = construct(p, vals, c->untrack);
  if (r != NULL && p->plain_slots) got = 0; /* the instance took every value */
done:
  decref_vals(vals, got);
  if (vals != stack) PyMem_Free(vals);
  return r;
}

/* [u32 body_length][u32 field_count][fields] (docs/wire-format.md section 11);
 * the same steps as _evolution.decode. o[3]: versions (frozenset of ints),
 * o[4]: default(i) -> the value of a field older data lacks. o[5] (NULL when
 * the struct has no retired field and keeps no unknown field): (fixed, build,
 * kept): fixed[i] is None or (the value written in retired field i's slot,);
 * build(values, unknown) makes the instance (unknown: None or (count, bytes)
 * of the fields beyond the reader's, kept when kept is not None); kept(value)
 * -> None or (count, bytes) to write after the fields. */
static PyObject* dec_evolvable(const Plan* p, Ctx* c, Py_ssize_t* ppos) {
  Py_ssize_t pos = *ppos;
  if (c->end - pos < 8) FAIL_NULL();
  uint64_t body = ld_le(c->buf + pos, 4);
  uint64_t count = ld_le(c->buf + pos + 4, 4);
  pos += 8;
  if (body > (uint64_t)(c->end - pos)) FAIL_NULL();
  Py_ssize_t mine = p->n;
  if (count < (uint64_t)mine) {
    PyObject* k = PyLong_FromUnsignedLongLong(count);
    if (k == NULL) return NULL;
    int in = PySet_Contains(p->o[3], k);
    Py_DECREF(k);
    if (in < 0) return NULL;
    if (!in) FAIL_NULL();
  }
  Py_ssize_t bend = pos + (Py_ssize_t)body;
  Py_ssize_t known = count < (uint64_t)mine ? (Py_ssize_t)count : mine;
  PyObject** vals = PyMem_Calloc((size_t)(mine ? mine : 1), sizeof(PyObject*));
  if (vals == NULL) return PyErr_NoMemory();
  PyObject* r = NULL;
  for (Py_ssize_t i = 0; i < known; ++i) {
    vals[i] = dec(p->kids[i], c, &pos);
    if (vals[i] == NULL) goto done;
  }
  for (Py_ssize_t i = known; i < mine; ++i) {
    vals[i] = PyObject_CallFunction(p->o[4], "n", i);
    if (vals[i] == NULL) goto done;
  }
  Py_ssize_t known_end = pos;
  if (pos != bend) {
    if (pos < bend && count > (uint64_t)mine) {
      pos = bend;
    } else {
      PyErr_SetNone(Fail);
      goto done;
    }
  }
  if (p->o[5] != NULL) {
    PyObject* ex = p->o[5];
    PyObject* unknown;
    if (PyTuple_GET_ITEM(ex, 2) != Py_None && count > (uint64_t)mine) {
      unknown = Py_BuildValue("(Ky#)", (unsigned long long)(count - (uint64_t)mine),
                              (const char*)c->buf + known_end, bend - known_end);
      if (unknown == NULL) goto done;
    } else {
      unknown = Py_NewRef(Py_None);
    }
    PyObject* tup = PyTuple_New(mine);
    if (tup == NULL) {
      Py_DECREF(unknown);
      goto done;
    }
    for (Py_ssize_t i = 0; i < mine; ++i) PyTuple_SET_ITEM(tup, i, Py_NewRef(vals[i]));
    r = PyObject_CallFunctionObjArgs(PyTuple_GET_ITEM(ex, 1), tup, unknown, NULL);
    Py_DECREF(tup);
    Py_DECREF(unknown);
  } else {
    r = construct(p, vals, c->untrack);
  }
  if (r) *ppos = pos;
done:
  decref_vals(vals, mine);
  PyMem_Free(vals);
  return r;
}

static PyObject* dec_bitset(const Plan* p, Ctx* c, Py_ssize_t* ppos) {
  Py_ssize_t size = p->size, bits = p->n, pos = *ppos;
  if (size == 0) return PyLong_FromLong(0);
  if (c->end - pos < size) FAIL_NULL();
  const uint8_t* q = c->buf + pos;
  /* no bit at a position >= bits */
  for (Py_ssize_t i = bits / 8; i < size; ++i) {
    unsigned keep = (i == bits / 8) ? ((1u << (bits % 8)) - 1u) : 0u;
    if (q[i] & ~keep & 0xFFu) FAIL_NULL();
  }
  *ppos = pos + size;
  if (size <= 8) return PyLong_FromUnsignedLongLong(ld_le(q, (int)size));
  return _PyLong_FromByteArray(q, (size_t)size, 1, 0);
}

/* UTF-8 -> str; ASCII (the common case) is one scan and one copy. */
static PyObject* decode_str(const char* s, Py_ssize_t n) {
  Py_ssize_t i = 0;
  const unsigned char* u = (const unsigned char*)s;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, u + i, 8);
    if (w & 0x8080808080808080ULL) break;
  }
  for (; i < n; ++i) {
    if (u[i] & 0x80) break;
  }
  if (i < n) return PyUnicode_DecodeUTF8(s, n, NULL);
  PyObject* r = PyUnicode_New(n, 127);
  if (r == NULL) return NULL;
  memcpy(PyUnicode_1BYTE_DATA(r), s, (size_t)n);
  return r;
}

static PyObject* dec(const Plan* p, Ctx* c, Py_ssize_t* ppos) {
  Py_ssize_t pos = *ppos;
  switch (p->kind) {
  case K_SCALAR: return dec_scalar(p, c, ppos);
  case K_BOOL: {
    if (pos >= c->end) FAIL_NULL();
    uint8_t b = c->buf[pos];
    if (b > 1) FAIL_NULL();
    *ppos = pos + 1;
    return Py_NewRef(b ? Py_True : Py_False);
  }
  case K_ENUM:
  case K_FLAG: {
    PyObject* x;
    Py_ssize_t after = pos + p->size;
    if (p->flags & F_VARINT) {
      uint64_t u;
      after = pos;
      if (read_varint(c->buf, c->end, c->lim, &after, p->size, &u) < 0) return NULL;
      x = varint_value(p->code, u);
    } else {
      if (c->end - pos < p->size) FAIL_NULL();
      x = load_scalar(p->code, c->buf + pos);
    }
    if (x == NULL) return NULL;
    PyObject* r;
    if (p->kind == K_ENUM) {
      r = PyDict_GetItemWithError(p->o[0], x);
      Py_XINCREF(r);
      if (r == NULL && !PyErr_Occurred()) PyErr_SetNone(Fail);
    } else {
      r = PyObject_CallOneArg(p->o[0], x);
    }
    Py_DECREF(x);
    if (r) *ppos = after;
    return r;
  }
  case K_BITSET: return dec_bitset(p, c, ppos);
  case K_STR:
  case K_BYTES: {
    Py_ssize_t n;
    if (read_count(c, &pos, 1, &n, p->flags & F_VARINT) < 0) return NULL;
    const char* s = (const char*)c->buf + pos;
    PyObject* r = p->kind == K_STR ? decode_str(s, n) : PyBytes_FromStringAndSize(s, n);
    if (r) *ppos = pos + n;
    return r;
  }
  case K_LIST: {
    Py_ssize_t n;
    if (read_count(c, &pos, p->per, &n, p->flags & F_VARINT) < 0) return NULL;
    PyObject* r = (p->flags & F_NDARRAY) ? dec_ndarray(p, c, &pos, n)
                                         : dec_seq(p->kids[0], c, &pos, n, p->flags & F_TUPLE);
    if (r) *ppos = pos;
    return r;
  }
  case K_ARRAY: {
    PyObject* r = (p->flags & F_NDARRAY) ? dec_ndarray(p, c, &pos, p->n)
                                         : dec_seq(p->kids[0], c, &pos, p->n, p->flags & F_TUPLE);
    if (r) *ppos = pos;
    return r;
  }
  case K_OPTIONAL: {
    if (pos >= c->end) FAIL_NULL();
    uint8_t f = c->buf[pos];
    if (f > 1) FAIL_NULL();
    *ppos = pos + 1;
    if (f == 0) Py_RETURN_NONE;
    return dec(p->kids[0], c, ppos);
  }
  case K_VARIANT: {
    uint64_t idx;
    if (p->flags & F_VARINT) {
      if (read_varint(c->buf, c->end, c->lim, &pos, 4, &idx) < 0) return NULL;
    } else {
      if (c->end - pos < 4) FAIL_NULL();
      idx = ld_le(c->buf + pos, 4);
      pos += 4;
    }
    if (idx >= (uint64_t)p->nkids) FAIL_NULL();
    if (Py_EnterRecursiveCall(" in bin_serializer decode")) return NULL;
    PyObject* x = dec(p->kids[idx], c, &pos);
    Py_LeaveRecursiveCall();
    if (x == NULL) return NULL;
    if (p->flags & F_TAGGED) {
      PyObject* args[2] = {PyLong_FromUnsignedLongLong(idx), x};
      if (args[0] == NULL) {
        Py_DECREF(x);
        return NULL;
      }
      PyObject* r = PyObject_Vectorcall(VariantCls, args, 2, NULL);
      Py_DECREF(args[0]);
      Py_DECREF(x);
      x = r;
      if (x == NULL) return NULL;
    }
    *ppos = pos;
    return x;
  }
  case K_MONOSTATE: return Py_NewRef(MonostateObj);
  case K_TUPLE: {
    PyObject* r = PyTuple_New(p->nkids);
    if (r == NULL) return NULL;
    for (Py_ssize_t i = 0; i < p->nkids; ++i) {
      PyObject* x = dec(p->kids[i], c, &pos);
      if (x == NULL) {
        Py_DECREF(r);
        return NULL;
      }
      PyTuple_SET_ITEM(r, i, x);
    }
    *ppos = pos;
    return r;
  }
  case K_MAP: {
    Py_ssize_t n;
    if (read_count(c, &pos, p->per, &n, p->flags & F_VARINT) < 0) return NULL;
    PyObject* d = PyDict_New();
    if (d == NULL) return NULL;
    if (Py_EnterRecursiveCall(" in bin_serializer decode")) {
      Py_DECREF(d);
      return NULL;
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* k = dec(p->kids[0], c, &pos);
      if (k == NULL) goto map_fail;
      int has = PyDict_Contains(d, k);
      if (has != 0) {
        Py_DECREF(k);
        if (has > 0) PyErr_SetNone(Fail);
        goto map_fail;
      }
      PyObject* v = dec(p->kids[1], c, &pos);
      if (v == NULL) {
        Py_DECREF(k);
        goto map_fail;
      }
      int rc = PyDict_SetItem(d, k, v);
      Py_DECREF(k);
      Py_DECREF(v);
      if (rc < 0) goto map_fail;
    }
    Py_LeaveRecursiveCall();
    *ppos = pos;
    return d;
  map_fail:
    Py_LeaveRecursiveCall();
    Py_DECREF(d);
    return NULL;
  }
  case K_SET: {
    Py_ssize_t n;
    if (read_count(c, &pos, p->per, &n, p->flags & F_VARINT) < 0) return NULL;
    PyObject* s = PySet_New(NULL);
    if (s == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* k = dec(p->kids[0], c, &pos);
      if (k == NULL) goto set_fail;
      int has = PySet_Contains(s, k);
      if (has != 0) {
        Py_DECREF(k);
        if (has > 0) PyErr_SetNone(Fail);
        goto set_fail;
      }
      int rc = PySet_Add(s, k);
      Py_DECREF(k);
      if (rc < 0) goto set_fail;
    }
    *ppos = pos;
    if (p->flags & F_FROZEN) {
      PyObject* f = PyFrozenSet_New(s);
      Py_DECREF(s);
      return f;
    }
    return s;
  set_fail:
    Py_DECREF(s);
    return NULL;
  }
  case K_STRUCT:
    if (!(p->flags & F_RECURSIVE)) return dec_struct(p, c, ppos); /* depth bounded by the schema */
    /* fall through */
  case K_EVOLVABLE: {
    if (Py_EnterRecursiveCall(" in bin_serializer decode")) return NULL;
    PyObject* r = p->kind == K_STRUCT ? dec_struct(p, c, ppos) : dec_evolvable(p, c, ppos);
    Py_LeaveRecursiveCall();
    return r;
  }
  }
  PyErr_SetString(PyExc_SystemError, "bin_serializer._cext: bad plan kind");
  return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * encoding */

typedef struct {
  uint8_t* p;
  Py_ssize_t len, cap;
  uint8_t small[512];
} Out;

static int grow(Out* o, Py_ssize_t need) {
  Py_ssize_t cap = o->cap * 2;
  if (cap < o->len + need) cap = o->len + need + 256;
  uint8_t* np;
  if (o->p == o->small) {
    np = PyMem_Malloc((size_t)cap);
    if (np) memcpy(np, o->p, (size_t)o->len);
  } else {
    np = PyMem_Realloc(o->p, (size_t)cap);
  }
  if (np == NULL) {
    PyErr_NoMemory();
    return -1;
  }
  o->p = np;
  o->cap = cap;
  return 0;
}

static inline int reserve(Out* o, Py_ssize_t need) {
  if (o->cap - o->len >= need) return 0;
  return grow(o, need);
}

static inline int put(Out* o, const void* src, Py_ssize_t n) {
  if (reserve(o, n) < 0) return -1;
  memcpy(o->p + o->len, src, (size_t)n);
  o->len += n;
  return 0;
}

static inline int put_u(Out* o, uint64_t x, int size) {
  if (reserve(o, size) < 0) return -1;
  st_le(o->p + o->len, x, size);
  o->len += size;
  return 0;
}

static int enc(const Plan* p, PyObject* v, Out* o);

static inline int put_varint(Out* o, uint64_t x) {
  if (reserve(o, 10) < 0) return -1;
  uint8_t* q = o->p + o->len;
  Py_ssize_t i = 0;
  while (x >= 0x80) {
    q[i++] = (uint8_t)(x | 0x80);
    x >>= 7;
  }
  q[i++] = (uint8_t)x;
  o->len += i;
  return 0;
}

/* A length/count prefix: u64 LE, or (compact) a varint. */
static inline int put_count(Out* o, uint64_t n, int varint) {
  return varint ? put_varint(o, n) : put_u(o, n, 8);
}

/* An integer of scalar `code` (size bytes) as a compact varint: the same
 * conversion and range checks as the fixed-width store, then zigzag for
 * signed codes. */
static inline int enc_varint(char code, Py_ssize_t size, PyObject* v, Out* o) {
  uint8_t tmp[8];
  if (store_scalar(code, v, tmp) < 0) return -1;
  uint64_t x = ld_le(tmp, (int)size);
  if (signed_code(code)) {
    int shift = 64 - 8 * (int)size;
    int64_t n = (int64_t)(x << shift) >> shift; /* sign-extend */
    x = ((uint64_t)n << 1) ^ (uint64_t)(n >> 63);
  }
  return put_varint(o, x);
}

static int enc_bytes_obj(PyObject* b, Out* o, int with_count) {
  char* s;
  Py_ssize_t n;
  if (PyBytes_AsStringAndSize(b, &s, &n) < 0) return -1;
  if (with_count && put_count(o, (uint64_t)n, with_count > 1) < 0) return -1;
  return put(o, s, n);
}

/* Elements of a list/tuple (already a list or tuple). */
/* A list may be changed by Python code that encoding runs (__index__,
 * __float__, ...): its size is checked and its item held at every step. */
static int seq_changed(PyObject* seq, Py_ssize_t n) {
  if (PySequence_Fast_GET_SIZE(seq) == n) return 0;
  PyErr_SetString(PyExc_RuntimeError, "sequence changed size during encoding");
  return -1;
}

static int enc_items(const Plan* elem, PyObject* seq, Out* o) {
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject** items = PySequence_Fast_ITEMS(seq);
  if (elem->kind == K_SCALAR && (elem->flags & F_VARINT)) {
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (seq_changed(seq, n) < 0) return -1;
      PyObject* x = PySequence_Fast_GET_ITEM(seq, i);
      Py_INCREF(x);
      int rc = enc_varint(elem->code, elem->size, x, o);
      Py_DECREF(x);
      if (rc < 0) return -1;
    }
    return 0;
  }
  if (elem->kind == K_SCALAR) {
    Py_ssize_t sz = elem->size;
    if (reserve(o, n * sz) < 0) return -1;
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (seq_changed(seq, n) < 0) return -1;
      PyObject* x = PySequence_Fast_GET_ITEM(seq, i);
      Py_INCREF(x);
      int rc = store_scalar(elem->code, x, o->p + o->len);
      Py_DECREF(x);
      if (rc < 0) return -1;
      o->len += sz;
    }
    return 0;
  }
  if (elem->kind == K_BOOL) {
    if (reserve(o, n) < 0) return -1;
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* x = items[i];
      uint8_t b;
      if (x == Py_True)
        b = 1;
      else if (x == Py_False)
        b = 0;
      else {
        if (!PyLong_Check(x)) FAIL_INT();
        int of = 0;
        long long y = PyLong_AsLongLongAndOverflow(x, &of);
        if (of || (y != 0 && y != 1)) FAIL_INT();
        b = (uint8_t)y;
      }
      o->p[o->len++] = b;
    }
    return 0;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (seq_changed(seq, n) < 0) return -1;
    PyObject* x = PySequence_Fast_GET_ITEM(seq, i);
    Py_INCREF(x);
    int rc = enc(elem, x, o);
    Py_DECREF(x);
    if (rc < 0) return -1;
  }
  return 0;
}

static int enc_ndarray(const Plan* p, PyObject* v, Out* o, int with_count, Py_ssize_t fixed_n) {
  PyObject* b = PyObject_CallFunctionObjArgs(p->o[2], v, p->o[0], p->o[1], NULL);
  if (b == NULL) return -1;
  if (!PyBytes_Check(b)) {
    Py_DECREF(b);
    FAIL_INT();
  }
  Py_ssize_t esize = p->size;
  int rc;
  if (!with_count && PyBytes_GET_SIZE(b) != fixed_n * esize) {
    PyErr_SetNone(Fail);
    rc = -1;
  } else {
    rc = (with_count ? put_count(o, (uint64_t)(PyBytes_GET_SIZE(b) / esize), p->flags & F_VARINT)
                     : 0) < 0
             ? -1
             : enc_bytes_obj(b, o, 0);
  }
  Py_DECREF(b);
  return rc;
}

/* An evolvable struct with o[5] (see dec_evolvable): retired fields write
 * their fixed value, kept unknown fields follow the struct's own (count: the
 * field_count to write). */
static int enc_evolution_fields(const Plan* p, PyObject* v, Out* o, uint64_t* count) {
  PyObject* names = p->o[1];
  PyObject* ex = p->o[5];
  PyObject* fixed = PyTuple_GET_ITEM(ex, 0);
  for (Py_ssize_t i = 0; i < p->n; ++i) {
    PyObject* f = PyTuple_GET_ITEM(fixed, i);
    PyObject* x;
    if (f != Py_None) {
      x = Py_NewRef(PyTuple_GET_ITEM(f, 0));
    } else {
      x = PyObject_GetAttr(v, PyTuple_GET_ITEM(names, i));
      if (x == NULL) return -1;
    }
    int rc = enc(p->kids[i], x, o);
    Py_DECREF(x);
    if (rc < 0) return -1;
  }
  PyObject* kept_fn = PyTuple_GET_ITEM(ex, 2);
  if (kept_fn == Py_None) return 0;
  PyObject* kept = PyObject_CallOneArg(kept_fn, v);
  if (kept == NULL) return -1;
  if (kept == Py_None) {
    Py_DECREF(kept);
    return 0;
  }
  /* kept_fn checked it: (int count, bytes data) with count + fields <= 2**32-1 */
  unsigned long long k = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(kept, 0));
  PyObject* data = PyTuple_GET_ITEM(kept, 1);
  int rc = 0;
  if (k == (unsigned long long)-1 && PyErr_Occurred()) {
    rc = -1;
  } else if (reserve(o, PyBytes_GET_SIZE(data)) < 0) {
    rc = -1;
  } else {
    memcpy(o->p + o->len, PyBytes_AS_STRING(data), (size_t)PyBytes_GET_SIZE(data));
    o->len += PyBytes_GET_SIZE(data);
    *count += k;
  }
  Py_DECREF(kept);
  return rc;
}

static int enc_struct_fields(const Plan* p, PyObject* v, Out* o) {
  PyObject* names = p->o[1];
  if (p->flags & F_PADDED) {
    Py_ssize_t base = o->len;
    if (reserve(o, p->size) < 0) return -1;
    memset(o->p + base, 0, (size_t)p->size);
    for (Py_ssize_t i = 0; i < p->n; ++i) {
      PyObject* x = PyObject_GetAttr(v, PyTuple_GET_ITEM(names, i));
      if (x == NULL) return -1;
      o->len = base + p->offsets[i];
      int rc = enc(p->kids[i], x, o);
      Py_DECREF(x);
      if (rc < 0) return -1;
    }
    o->len = base + p->size;
    return 0;
  }
  if ((p->flags & F_SLOTS) && (PyObject*)Py_TYPE(v) == p->o[0]) {
    /* size: the fixed encoded size when there is one (reserved once) */
    int fixed = p->size > 0;
    if (fixed && reserve(o, p->size) < 0) return -1;
    for (Py_ssize_t i = 0; i < p->n; ++i) {
      PyObject* x = *(PyObject**)((char*)v + p->slot_at[i]);
      if (x == NULL) { /* an unset slot: getattr would raise */
        PyErr_SetObject(PyExc_AttributeError, PyTuple_GET_ITEM(names, i));
        return -1;
      }
      Py_INCREF(x);
      const Plan* k = p->kids[i];
      int rc;
      if (k->kind == K_SCALAR && !(k->flags & F_VARINT)) {
        rc = fixed ? 0 : reserve(o, k->size);
        if (rc == 0) rc = store_scalar(k->code, x, o->p + o->len);
        if (rc == 0) o->len += k->size;
      } else {
        rc = enc(k, x, o);
      }
      Py_DECREF(x);
      if (rc < 0) return -1;
    }
    return 0;
  }
  PyObject* dict = NULL;
  if ((p->flags & F_FASTNEW) && Py_TYPE(v)->tp_dictoffset != 0) {
    /* A plain dataclass instance: its fields are in its __dict__,
         * normally in declaration order (__init__ stores them so); walk it
         * instead of one attribute lookup per field. */
    dict = PyObject_GenericGetDict(v, NULL);
    if (dict == NULL) PyErr_Clear();
  }
  Py_ssize_t it = 0;
  for (Py_ssize_t i = 0; i < p->n; ++i) {
    PyObject *name = PyTuple_GET_ITEM(names, i), *key, *x = NULL;
    if (dict != NULL && PyDict_Next(dict, &it, &key, &x) && key == name) {
      Py_INCREF(x);
    } else {
      if (dict != NULL) {
        x = PyDict_GetItemWithError(dict, name);
        Py_XINCREF(x);
        it = PY_SSIZE_T_MAX; /* out of order: look the rest up */
      }
      if (x == NULL) {
        if (PyErr_Occurred()) {
          Py_XDECREF(dict);
          return -1;
        }
        x = PyObject_GetAttr(v, name);
        if (x == NULL) {
          Py_XDECREF(dict);
          return -1;
        }
      }
    }
    const Plan* k = p->kids[i];
    int rc;
    if (k->kind == K_SCALAR && !(k->flags & F_VARINT)) { /* inline: most fields are numbers */
      rc = reserve(o, k->size);
      if (rc == 0) rc = store_scalar(k->code, x, o->p + o->len);
      if (rc == 0) o->len += k->size;
    } else {
      rc = enc(k, x, o);
    }
    Py_DECREF(x);
    if (rc < 0) {
      Py_XDECREF(dict);
      return -1;
    }
  }
  Py_XDECREF(dict);
  return 0;
}

static int enc_bitset(const Plan* p, PyObject* v, Out* o) {
  if (!PyLong_Check(v)) FAIL_INT();
  PyObject* bits = PyLong_FromSsize_t(p->n);
  if (bits == NULL) return -1;
  PyObject* hi = PyNumber_Rshift(v, bits);
  Py_DECREF(bits);
  if (hi == NULL) return -1;
  int nz = PyObject_IsTrue(hi);
  Py_DECREF(hi);
  if (nz != 0) {
    if (nz > 0) PyErr_SetNone(Fail);
    return -1;
  }
  if (p->size == 0) return 0;
  if (reserve(o, p->size) < 0) return -1;
  if (p->size <= 8) {
    unsigned long long x = PyLong_AsUnsignedLongLong(v);
    if (x == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    st_le(o->p + o->len, x, (int)p->size);
  } else {
    PyObject* b = PyObject_CallMethod(v, "to_bytes", "ns", p->size, "little");
    if (b == NULL) return -1;
    memcpy(o->p + o->len, PyBytes_AS_STRING(b), (size_t)p->size);
    Py_DECREF(b);
  }
  o->len += p->size;
  return 0;
}

static int enc(const Plan* p, PyObject* v, Out* o) {
  switch (p->kind) {
  case K_SCALAR:
  case K_FLAG: {
    if (p->flags & F_VARINT) return enc_varint(p->code, p->size, v, o);
    if (reserve(o, p->size) < 0) return -1;
    if (store_scalar(p->code, v, o->p + o->len) < 0) return -1;
    o->len += p->size;
    return 0;
  }
  case K_BOOL: {
    uint8_t b;
    if (v == Py_True)
      b = 1;
    else if (v == Py_False)
      b = 0;
    else {
      if (!PyLong_Check(v) || PyBool_Check(v)) FAIL_INT();
      int of = 0;
      long long y = PyLong_AsLongLongAndOverflow(v, &of);
      if (of || (y != 0 && y != 1)) FAIL_INT();
      b = (uint8_t)y;
    }
    return put(o, &b, 1);
  }
  case K_ENUM: {
    /* an instance of the enum class is a member (and an IntEnum's
             * __hash__ runs Python code: skip the dict for it) */
    int in = (PyObject*)Py_TYPE(v) == p->o[1] ? 1 : PyDict_Contains(p->o[0], v);
    if (in <= 0) {
      if (in == 0) PyErr_SetNone(Fail);
      return -1;
    }
    if (p->flags & F_VARINT) return enc_varint(p->code, p->size, v, o);
    if (reserve(o, p->size) < 0) return -1;
    if (store_scalar(p->code, v, o->p + o->len) < 0) return -1;
    o->len += p->size;
    return 0;
  }
  case K_BITSET: return enc_bitset(p, v, o);
  case K_STR: {
    if (!PyUnicode_Check(v)) FAIL_INT();
    Py_ssize_t n;
    const char* s = PyUnicode_AsUTF8AndSize(v, &n);
    if (s == NULL) return -1;
    if (put_count(o, (uint64_t)n, p->flags & F_VARINT) < 0) return -1;
    return put(o, s, n);
  }
  case K_BYTES: {
    int with_count = (p->flags & F_VARINT) ? 2 : 1; /* 2: a varint count */
    if (PyBytes_Check(v)) return enc_bytes_obj(v, o, with_count);
    if (PyByteArray_Check(v)) {
      Py_ssize_t n = PyByteArray_GET_SIZE(v);
      if (put_count(o, (uint64_t)n, with_count > 1) < 0) return -1;
      return put(o, PyByteArray_AS_STRING(v), n);
    }
    if (PyMemoryView_Check(v)) {
      PyObject* b = PyObject_CallMethod(v, "tobytes", NULL);
      if (b == NULL) return -1;
      int rc = enc_bytes_obj(b, o, with_count);
      Py_DECREF(b);
      return rc;
    }
    FAIL_INT();
  }
  case K_LIST: {
    if (p->flags & F_NDARRAY) return enc_ndarray(p, v, o, 1, 0);
    PyObject* seq;
    if (PyList_CheckExact(v)) {
      seq = Py_NewRef(v);
    } else {
      seq = PyObject_CallOneArg(AsList, v);
      if (seq == NULL) return -1;
      if (!PyList_Check(seq) && !PyTuple_Check(seq)) {
        Py_DECREF(seq);
        FAIL_INT();
      }
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    /* every element takes at least `per` bytes: one allocation up front */
    int rc = (n <= PY_SSIZE_T_MAX / 2 / p->per) ? reserve(o, 8 + n * p->per) : 0;
    if (rc == 0) rc = put_count(o, (uint64_t)n, p->flags & F_VARINT);
    if (rc == 0) rc = enc_items(p->kids[0], seq, o);
    if (rc == 0) rc = seq_changed(seq, n); /* the count written is the count encoded */
    Py_DECREF(seq);
    return rc;
  }
  case K_ARRAY: {
    if (p->flags & F_NDARRAY) return enc_ndarray(p, v, o, 0, p->n);
    if (PyList_CheckExact(v) || PyTuple_CheckExact(v)) {
      if (PySequence_Fast_GET_SIZE(v) != p->n) FAIL_INT();
      return enc_items(p->kids[0], v, o);
    }
    Py_ssize_t len = PyObject_Size(v);
    if (len < 0) return -1;
    if (len != p->n) FAIL_INT();
    PyObject* seq = PySequence_Fast(v, "expected a sequence");
    if (seq == NULL) return -1;
    int rc = PySequence_Fast_GET_SIZE(seq) == p->n ? enc_items(p->kids[0], seq, o)
                                                   : (PyErr_SetNone(Fail), -1);
    Py_DECREF(seq);
    return rc;
  }
  case K_OPTIONAL: {
    if (v == Py_None) return put_u(o, 0, 1);
    if (put_u(o, 1, 1) < 0) return -1;
    return enc(p->kids[0], v, o);
  }
  case K_VARIANT: {
    Py_ssize_t idx;
    PyObject* x;
    if (p->flags & F_TAGGED) {
      if (!PyObject_TypeCheck(v, (PyTypeObject*)VariantCls) || PyTuple_GET_SIZE(v) != 2) FAIL_INT();
      PyObject* i = PyTuple_GET_ITEM(v, 0);
      if (!PyLong_Check(i)) FAIL_INT();
      idx = PyLong_AsSsize_t(i);
      if (idx == -1 && PyErr_Occurred()) return -1;
      x = PyTuple_GET_ITEM(v, 1);
    } else {
      PyObject* i = PyDict_GetItemWithError(p->o[0], (PyObject*)Py_TYPE(v));
      if (i == NULL) {
        if (PyErr_Occurred()) return -1;
        i = PyObject_CallOneArg(p->o[1], v); /* VariantN.index_of: isinstance fallback */
        if (i == NULL) return -1;
        if (i == Py_None) {
          Py_DECREF(i);
          FAIL_INT();
        }
        idx = PyLong_AsSsize_t(i);
        Py_DECREF(i);
      } else {
        idx = PyLong_AsSsize_t(i);
      }
      if (idx == -1 && PyErr_Occurred()) return -1;
      x = v;
    }
    if (idx < 0 || idx >= p->nkids) FAIL_INT();
    if ((p->flags & F_VARINT ? put_varint(o, (uint64_t)idx) : put_u(o, (uint64_t)idx, 4)) < 0)
      return -1;
    if (Py_EnterRecursiveCall(" in bin_serializer encode")) return -1;
    int rc = enc(p->kids[idx], x, o);
    Py_LeaveRecursiveCall();
    return rc;
  }
  case K_MONOSTATE: return 0;
  case K_TUPLE: {
    Py_ssize_t len = PyObject_Size(v);
    if (len < 0) return -1;
    if (len != p->nkids) FAIL_INT();
    PyObject* seq = PySequence_Fast(v, "expected a sequence");
    if (seq == NULL) return -1;
    int rc = 0;
    if (PySequence_Fast_GET_SIZE(seq) != p->nkids) {
      PyErr_SetNone(Fail);
      rc = -1;
    }
    for (Py_ssize_t i = 0; rc == 0 && i < p->nkids; ++i) {
      rc = seq_changed(seq, p->nkids);
      if (rc < 0) break;
      PyObject* x = PySequence_Fast_GET_ITEM(seq, i);
      Py_INCREF(x);
      rc = enc(p->kids[i], x, o);
      Py_DECREF(x);
    }
    Py_DECREF(seq);
    return rc;
  }
  case K_MAP: {
    if (!PyDict_Check(v)) FAIL_INT();
    if (put_count(o, (uint64_t)PyDict_GET_SIZE(v), p->flags & F_VARINT) < 0) return -1;
    if (Py_EnterRecursiveCall(" in bin_serializer encode")) return -1;
    Py_ssize_t it = 0;
    PyObject *k, *x;
    int rc = 0;
    Py_ssize_t size = PyDict_GET_SIZE(v);
    while (rc == 0 && PyDict_Next(v, &it, &k, &x)) {
      Py_INCREF(k);
      Py_INCREF(x);
      rc = enc(p->kids[0], k, o);
      if (rc == 0) rc = enc(p->kids[1], x, o);
      Py_DECREF(k);
      Py_DECREF(x);
      if (rc == 0 && PyDict_GET_SIZE(v) != size) { /* mutated while encoding */
        PyErr_SetString(PyExc_RuntimeError, "dict changed size during encoding");
        rc = -1;
      }
    }
    Py_LeaveRecursiveCall();
    return rc;
  }
  case K_SET: {
    PyObject* seq = PyObject_CallOneArg(SetOrder, v);
    if (seq == NULL) return -1;
    if (!PyList_Check(seq)) {
      Py_DECREF(seq);
      FAIL_INT();
    }
    int rc = put_count(o, (uint64_t)PyList_GET_SIZE(seq), p->flags & F_VARINT);
    if (rc == 0) rc = enc_items(p->kids[0], seq, o);
    Py_DECREF(seq);
    return rc;
  }
  case K_STRUCT:
  case K_EVOLVABLE: {
    PyObject* cls = p->o[0];
    if ((PyObject*)Py_TYPE(v) != cls) {
      int ok = PyObject_IsInstance(v, cls);
      if (ok <= 0) {
        if (ok == 0) PyErr_SetNone(Fail);
        return -1;
      }
    }
    if (p->kind == K_STRUCT && !(p->flags & F_RECURSIVE)) return enc_struct_fields(p, v, o);
    if (Py_EnterRecursiveCall(" in bin_serializer encode")) return -1;
    int rc;
    if (p->kind == K_STRUCT) {
      rc = enc_struct_fields(p, v, o);
    } else {
      Py_ssize_t start = o->len;
      uint64_t count = (uint64_t)p->n;
      rc = put_u(o, 0, 8);
      if (rc == 0 && p->o[5] == NULL) {
        rc = enc_struct_fields(p, v, o);
      } else if (rc == 0) {
        rc = enc_evolution_fields(p, v, o, &count);
      }
      if (rc == 0) {
        Py_ssize_t body = o->len - start - 8;
        if ((uint64_t)body > 0xFFFFFFFFu) {
          PyErr_SetString(PyExc_ValueError, "evolvable struct body exceeds the u32 body_length");
          rc = -1;
        } else {
          st_le(o->p + start, (uint64_t)body, 4);
          st_le(o->p + start + 4, count, 4);
        }
      }
    }
    Py_LeaveRecursiveCall();
    return rc;
  }
  }
  PyErr_SetString(PyExc_SystemError, "bin_serializer._cext: bad plan kind");
  return -1;
}

/* ---------------------------------------------------------------------------------------------
 * Program: the plan table of one codec */

typedef struct {
  PyObject_HEAD Py_ssize_t nplans;
  Plan* plans;
  Plan* root;
  Py_ssize_t fixed_size; /* -1 when the root has no fixed size */
  PyObject* keep;        /* the entries tuple (owns every object the plans point to) */
} Program;

static void Program_dealloc(Program* self) {
  if (self->plans) {
    for (Py_ssize_t i = 0; i < self->nplans; ++i) {
      PyMem_Free(self->plans[i].kids);
      PyMem_Free(self->plans[i].offsets);
      PyMem_Free(self->plans[i].order);
      PyMem_Free(self->plans[i].slot_at);
    }
    PyMem_Free(self->plans);
  }
  Py_XDECREF(self->keep);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

static Py_ssize_t* ssize_array(PyObject* tup, Py_ssize_t* count) {
  if (!PyTuple_Check(tup)) {
    PyErr_SetString(PyExc_TypeError, "plan entry: expected a tuple of ints");
    return NULL;
  }
  Py_ssize_t n = PyTuple_GET_SIZE(tup);
  Py_ssize_t* a = PyMem_Calloc((size_t)(n ? n : 1), sizeof(Py_ssize_t));
  if (a == NULL) {
    PyErr_NoMemory();
    return NULL;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    a[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(tup, i));
    if (a[i] == -1 && PyErr_Occurred()) {
      PyMem_Free(a);
      return NULL;
    }
  }
  *count = n;
  return a;
}

/* Program(entries, root, fixed_size). Each entry:
 * (kind, flags, code, size, n, per, kids, offsets, order, npos, objs) */
static PyObject* Program_new(PyTypeObject* type, PyObject* args, PyObject* kw) {
  (void)kw;
  PyObject* entries;
  Py_ssize_t root, fixed;
  if (!PyArg_ParseTuple(args, "O!nn", &PyTuple_Type, &entries, &root, &fixed)) return NULL;
  Py_ssize_t n = PyTuple_GET_SIZE(entries);
  if (root < 0 || root >= n) {
    PyErr_SetString(PyExc_ValueError, "root out of range");
    return NULL;
  }
  Program* self = (Program*)type->tp_alloc(type, 0);
  if (self == NULL) return NULL;
  self->plans = PyMem_Calloc((size_t)n, sizeof(Plan));
  if (self->plans == NULL) {
    Py_DECREF(self);
    return PyErr_NoMemory();
  }
  self->nplans = n;
  self->keep = Py_NewRef(entries);
  self->fixed_size = fixed;
  for (Py_ssize_t i = 0; i < n; ++i) {
    Plan* p = &self->plans[i];
    PyObject* e = PyTuple_GET_ITEM(entries, i);
    PyObject *kids, *offsets, *order, *objs;
    const char* code;
    Py_ssize_t codelen;
    if (!PyTuple_Check(e) ||
        !PyArg_ParseTuple(e, "iis#nnnO!O!O!nO!", &p->kind, &p->flags, &code, &codelen, &p->size,
                          &p->n, &p->per, &PyTuple_Type, &kids, &PyTuple_Type, &offsets,
                          &PyTuple_Type, &order, &p->npos, &PyTuple_Type, &objs)) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "bad plan entry");
      Py_DECREF(self);
      return NULL;
    }
    if (p->kind < 0 || p->kind >= K_COUNT || p->per < 1 || PyTuple_GET_SIZE(objs) > 6) {
      PyErr_SetString(PyExc_ValueError, "bad plan entry");
      Py_DECREF(self);
      return NULL;
    }
    p->code = codelen ? code[0] : 0;
    Py_ssize_t nk, tmp;
    Py_ssize_t* kidx = ssize_array(kids, &nk);
    if (kidx == NULL) {
      Py_DECREF(self);
      return NULL;
    }
    p->kids = PyMem_Calloc((size_t)(nk ? nk : 1), sizeof(Plan*));
    p->nkids = nk;
    for (Py_ssize_t k = 0; k < nk; ++k) {
      if (kidx[k] < 0 || kidx[k] >= n) {
        PyMem_Free(kidx);
        PyErr_SetString(PyExc_ValueError, "plan child out of range");
        Py_DECREF(self);
        return NULL;
      }
      p->kids[k] = &self->plans[kidx[k]];
    }
    PyMem_Free(kidx);
    p->offsets = ssize_array(offsets, &tmp);
    if (p->offsets == NULL) {
      Py_DECREF(self);
      return NULL;
    }
    p->order = ssize_array(order, &tmp);
    if (p->order == NULL) {
      Py_DECREF(self);
      return NULL;
    }
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(objs); ++k) p->o[k] = PyTuple_GET_ITEM(objs, k);
    if (p->flags & F_SLOTS) {
      Py_ssize_t ns = 0;
      if (p->kind != K_STRUCT || !p->o[3] || !(p->slot_at = ssize_array(p->o[3], &ns)) ||
          ns != p->n) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad slot offsets");
        Py_DECREF(self);
        return NULL;
      }
      PyTypeObject* tp = (PyTypeObject*)p->o[0];
      p->plain_slots = (p->flags & F_FASTNEW) && tp->tp_dictoffset == 0 && tp->tp_itemsize == 0 &&
                       tp->tp_alloc == PyType_GenericAlloc && PyType_IS_GC(tp) &&
                       tp->tp_basicsize % (Py_ssize_t)sizeof(PyObject*) == 0;
      for (PyTypeObject* b = tp; b != NULL && b != &PyBaseObject_Type; b = b->tp_base)
        if (!(b->tp_flags & Py_TPFLAGS_HEAPTYPE)) p->plain_slots = 0;
      for (Py_ssize_t k = 0; k < ns; ++k) {
        if (p->slot_at[k] < (Py_ssize_t)sizeof(PyObject) ||
            p->slot_at[k] >
                ((PyTypeObject*)p->o[0])->tp_basicsize - (Py_ssize_t)sizeof(PyObject*)) {
          PyErr_SetString(PyExc_ValueError, "slot offset outside the instance");
          Py_DECREF(self);
          return NULL;
        }
      }
    }
    if (p->kind == K_EVOLVABLE && p->o[5] != NULL &&
        !(PyTuple_Check(p->o[5]) && PyTuple_GET_SIZE(p->o[5]) == 3 &&
          PyTuple_Check(PyTuple_GET_ITEM(p->o[5], 0)) &&
          PyTuple_GET_SIZE(PyTuple_GET_ITEM(p->o[5], 0)) == p->n)) {
      PyErr_SetString(PyExc_ValueError, "bad evolution plan");
      Py_DECREF(self);
      return NULL;
    }
    if (p->kind == K_EVOLVABLE && p->o[5] != NULL) {
      PyObject* fixed = PyTuple_GET_ITEM(p->o[5], 0);
      for (Py_ssize_t k = 0; k < p->n; ++k) {
        PyObject* f = PyTuple_GET_ITEM(fixed, k);
        if (f != Py_None && !(PyTuple_Check(f) && PyTuple_GET_SIZE(f) == 1)) {
          PyErr_SetString(PyExc_ValueError, "bad retired field value");
          Py_DECREF(self);
          return NULL;
        }
      }
    }
    if ((p->kind == K_STRUCT || p->kind == K_EVOLVABLE) && (nk != p->n || !p->o[1] || !p->o[2])) {
      PyErr_SetString(PyExc_ValueError, "bad struct plan");
      Py_DECREF(self);
      return NULL;
    }
  }
  self->root = &self->plans[root];
  return (PyObject*)self;
}

/* The cyclic GC is paused while one message is decoded: a decode makes many
 * container objects (instances, lists) and none of them is garbage yet, so
 * collections triggered by the allocation count would only walk them. The
 * count still grows; the next collection happens after the decode. */
static inline int gc_pause(void) {
#if PY_VERSION_HEX >= 0x030A0000
  return PyGC_Disable();
#else
  return 0;
#endif
}

static inline void gc_resume(int was_enabled) {
#if PY_VERSION_HEX >= 0x030A0000
  if (was_enabled) PyGC_Enable();
#else
  (void)was_enabled;
#endif
}

static int get_buffer(PyObject* obj, Py_buffer* view, Ctx* c) {
  if (PyBytes_CheckExact(obj)) {
    view->obj = NULL;
    c->buf = (const uint8_t*)PyBytes_AS_STRING(obj);
    c->end = PyBytes_GET_SIZE(obj);
  } else {
    if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) < 0) return -1;
    c->buf = view->buf;
    c->end = view->len;
  }
  c->lim = c->end;
  c->untrack = 0;
  c->obj = obj;
  return 0;
}

static void release_buffer(Py_buffer* view) {
  if (view->obj) PyBuffer_Release(view);
}

/* decode_from(buf, pos) -> (value, new_pos) */
static PyObject* Program_decode_from(Program* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "decode_from(buf, pos)");
    return NULL;
  }
  Py_ssize_t pos = PyLong_AsSsize_t(args[1]);
  if (pos == -1 && PyErr_Occurred()) return NULL;
  Py_buffer view;
  Ctx c;
  if (get_buffer(args[0], &view, &c) < 0) return NULL;
  if (pos < 0 || pos > c.end) {
    release_buffer(&view);
    FAIL_NULL();
  }
  int gc = gc_pause();
  PyObject* v = dec(self->root, &c, &pos);
  gc_resume(gc);
  release_buffer(&view);
  if (v == NULL) return NULL;
  PyObject* p = PyLong_FromSsize_t(pos);
  if (p == NULL) {
    Py_DECREF(v);
    return NULL;
  }
  PyObject* r = PyTuple_Pack(2, v, p);
  Py_DECREF(v);
  Py_DECREF(p);
  return r;
}

/* decode(buf) -> value when the whole buffer is one message; bytes left
 * over raise Trailing(end position). */
static PyObject* Program_run_whole(Program* self, Py_buffer* view, Ctx* c);

static PyObject* Program_decode(Program* self, PyObject* buf) {
  Py_buffer view;
  Ctx c;
  if (get_buffer(buf, &view, &c) < 0) return NULL;
  return Program_run_whole(self, &view, &c);
}

/* Program_decode once the buffer is held (releases it). */
static PyObject* Program_run_whole(Program* self, Py_buffer* view, Ctx* c) {
  Py_ssize_t pos = 0;
  int gc = gc_pause();
  PyObject* v = dec(self->root, c, &pos);
  gc_resume(gc);
  Py_ssize_t end = c->end;
  release_buffer(view);
  if (v != NULL && pos != end) {
    Py_DECREF(v);
    PyObject* at = PyLong_FromSsize_t(pos);
    if (at) {
      PyErr_SetObject(Trailing, at);
      Py_DECREF(at);
    }
    return NULL;
  }
  return v;
}

/* decode_many(buf, pos, n) -> list of n back-to-back fixed-size values */
static PyObject* Program_decode_many(Program* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 3 || self->fixed_size <= 0) {
    PyErr_SetString(PyExc_TypeError, "decode_many(buf, pos, n) of a fixed-size codec");
    return NULL;
  }
  Py_ssize_t pos = PyLong_AsSsize_t(args[1]);
  if (pos == -1 && PyErr_Occurred()) return NULL;
  Py_ssize_t n = PyLong_AsSsize_t(args[2]);
  if (n == -1 && PyErr_Occurred()) return NULL;
  Py_buffer view;
  Ctx c;
  if (get_buffer(args[0], &view, &c) < 0) return NULL;
  PyObject* r = NULL;
  if (pos < 0 || n < 0 || pos > c.end || n > (c.end - pos) / self->fixed_size) {
    PyErr_SetNone(Fail);
  } else if ((r = PyList_New(n)) != NULL) {
    int gc = gc_pause();
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* x = dec(self->root, &c, &pos);
      if (x == NULL) {
        Py_CLEAR(r);
        break;
      }
      PyList_SET_ITEM(r, i, x);
    }
    gc_resume(gc);
  }
  release_buffer(&view);
  return r;
}

/* decode_run(buf, pos, max_n) -> (values, new_pos, error): up to max_n
 * back-to-back messages from pos, stopping before the first that does not
 * decode (or does not advance). error: None, or the exception the message at
 * new_pos raised (the caller reports it without decoding it again, which
 * would run its user code, __post_init__, a second time). */
static PyObject* Program_decode_run(Program* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 3) {
    PyErr_SetString(PyExc_TypeError, "decode_run(buf, pos, max_n)");
    return NULL;
  }
  Py_ssize_t pos = PyLong_AsSsize_t(args[1]);
  if (pos == -1 && PyErr_Occurred()) return NULL;
  Py_ssize_t max_n = PyLong_AsSsize_t(args[2]);
  if (max_n == -1 && PyErr_Occurred()) return NULL;
  Py_buffer view;
  Ctx c;
  if (get_buffer(args[0], &view, &c) < 0) return NULL;
  PyObject* list = PyList_New(0);
  if (list == NULL || pos < 0 || pos > c.end) {
    release_buffer(&view);
    if (list != NULL) PyErr_SetString(PyExc_ValueError, "position outside the buffer");
    Py_XDECREF(list);
    return NULL;
  }
  int gc = gc_pause();
  PyObject* error = NULL;
  for (Py_ssize_t i = 0; i < max_n && pos < c.end; ++i) {
    Py_ssize_t at = pos;
    PyObject* x = dec(self->root, &c, &at);
    if (x == NULL) {
#if PY_VERSION_HEX >= 0x030C0000
      error = PyErr_GetRaisedException();
#else
      PyObject *type, *tb;
      PyErr_Fetch(&type, &error, &tb);
      PyErr_NormalizeException(&type, &error, &tb);
      if (tb != NULL && error != NULL) PyException_SetTraceback(error, tb);
      Py_XDECREF(type);
      Py_XDECREF(tb);
#endif
      if (error == NULL) Py_CLEAR(list);
      break;
    }
    if (at == pos || PyList_Append(list, x) < 0) {
      Py_DECREF(x);
      if (PyErr_Occurred()) Py_CLEAR(list);
      break;
    }
    Py_DECREF(x);
    pos = at;
  }
  gc_resume(gc);
  release_buffer(&view);
  if (list == NULL) {
    Py_XDECREF(error);
    return NULL;
  }
  PyObject* r = Py_BuildValue("(NnN)", list, pos, error ? error : Py_NewRef(Py_None));
  return r;
}

/* encode(value) -> bytes */
static PyObject* Program_encode(Program* self, PyObject* v) {
  Out o;
  o.p = o.small;
  o.len = 0;
  o.cap = (Py_ssize_t)sizeof(o.small);
  PyObject* r = NULL;
  if (enc(self->root, v, &o) == 0) r = PyBytes_FromStringAndSize((const char*)o.p, o.len);
  if (o.p != o.small) PyMem_Free(o.p);
  return r;
}

/* encode_into(value, bytearray) -> None: appends */
static PyObject* Program_encode_into(Program* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2 || !PyByteArray_Check(args[1])) {
    PyErr_SetString(PyExc_TypeError, "encode_into(value, bytearray)");
    return NULL;
  }
  PyObject* bb = Program_encode(self, args[0]);
  if (bb == NULL) return NULL;
  Py_ssize_t old = PyByteArray_GET_SIZE(args[1]); /* after the encoding: user code may resize it */
  if (PyByteArray_Resize(args[1], old + PyBytes_GET_SIZE(bb)) < 0) {
    Py_DECREF(bb);
    return NULL;
  }
  memcpy(PyByteArray_AS_STRING(args[1]) + old, PyBytes_AS_STRING(bb), (size_t)PyBytes_GET_SIZE(bb));
  Py_DECREF(bb);
  Py_RETURN_NONE;
}

static PyMethodDef Program_methods[] = {
    {"decode_from", (PyCFunction)(void (*)(void))Program_decode_from, METH_FASTCALL,
     "decode_from(buf, pos) -> (value, position after it)"},
    {"decode", (PyCFunction)Program_decode, METH_O,
     "decode(buf) -> value; raises Trailing(end) when bytes are left over"},
    {"decode_run", (PyCFunction)(void (*)(void))Program_decode_run, METH_FASTCALL,
     "decode_run(buf, pos, max_n) -> (values, position after them, error of the next or None)"},
    {"decode_many", (PyCFunction)(void (*)(void))Program_decode_many, METH_FASTCALL,
     "decode_many(buf, pos, n) -> list of n fixed-size values"},
    {"encode", (PyCFunction)Program_encode, METH_O, "encode(value) -> bytes"},
    {"encode_into", (PyCFunction)(void (*)(void))Program_encode_into, METH_FASTCALL,
     "encode_into(value, bytearray): appends the encoding"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject ProgramType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bin_serializer._cext.Program",
    .tp_basicsize = sizeof(Program),
    .tp_dealloc = (destructor)Program_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A compiled codec: Program(entries, root, fixed_size)",
    .tp_methods = Program_methods,
    .tp_new = Program_new,
};

/* ---------------------------------------------------------------------------------------------
 * encode / decode entry points: the common call shapes (`encode(obj)`,
 * `decode(cls, data)`, with an optional positional format) go straight to the
 * Program cached for the class; anything else, and every failure, is handed
 * to the Python implementation, which redoes the call and raises the precise
 * error. The tables (format -> {class: Program}) are filled by api.py. */

static PyObject *FastPortable, *FastNative, *FastCompact; /* dict: hint -> Program */
static PyObject *PyEncode, *PyDecode;                     /* the Python implementations */
static PyObject *PyEncodeFailed, *PyDecodeFailed;         /* fn(hint, format, input, exc) */
static PyObject *StrPortable, *StrNative, *StrCompact;

/* The exception being raised, taken (normalised, with its traceback). */
static PyObject* fetch_exception(void) {
#if PY_VERSION_HEX >= 0x030C0000
  return PyErr_GetRaisedException();
#else
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (tb != NULL && value != NULL) PyException_SetTraceback(value, tb);
  Py_XDECREF(type);
  Py_XDECREF(tb);
  return value;
#endif
}

/* After the Program ran and failed (the exception is set): the Python
 * handler raises the final error (the precise DecodeError / EncodeError, or
 * the exception user code raised) without running the call again, so user
 * callbacks run once per call. */
static PyObject* call_failed(PyObject* handler, PyObject* hint, PyObject* table, PyObject* input) {
  PyObject* value = fetch_exception();
  PyObject* fmt = table == FastNative ? StrNative : table == FastCompact ? StrCompact : StrPortable;
  PyObject* r = NULL;
  if (value != NULL) {
    PyObject* a[4] = {hint, fmt, input, value};
    r = PyObject_Vectorcall(handler, a, 4, NULL);
  }
  Py_XDECREF(value);
  return r;
}

static PyObject* pick_table(Py_ssize_t nargs, PyObject* const* args, Py_ssize_t fmt_at,
                            PyObject* kwnames) {
  if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) != 0) return NULL;
  if (FastPortable == NULL) return NULL;
  if (nargs <= fmt_at) return FastPortable;
  if (nargs > fmt_at + 1) return NULL;
  PyObject* f = args[fmt_at];
  if (f == StrPortable) return FastPortable;
  if (f == StrNative) return FastNative;
  if (f == StrCompact) return FastCompact;
  if (!PyUnicode_CheckExact(f)) return NULL;
  if (PyUnicode_Compare(f, StrPortable) == 0) return FastPortable;
  if (PyUnicode_Compare(f, StrNative) == 0) return FastNative;
  if (PyUnicode_Compare(f, StrCompact) == 0) return FastCompact;
  PyErr_Clear();
  return NULL;
}

static PyObject* entry_encode(PyObject* mod, PyObject* const* args, size_t nargsf,
                              PyObject* kwnames) {
  (void)mod;
  int kwnames_ok = 0;
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  PyObject* hint = nargs >= 1 ? (PyObject*)Py_TYPE(args[0]) : NULL;
  if (nargs >= 1 && kwnames != NULL && PyTuple_GET_SIZE(kwnames) == 1 &&
      PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "schema") == 0) {
    hint = args[nargs]; /* encode(value, [format,] schema=hint) */
    if (hint == Py_None) hint = (PyObject*)Py_TYPE(args[0]);
    kwnames_ok = 1;
  }
  if (nargs >= 1) {
    PyObject* table = pick_table(nargs, args, 1, kwnames_ok ? NULL : kwnames);
    if (table != NULL) {
      PyObject* prog = PyDict_GetItemWithError(table, hint);
      if (prog != NULL && Py_TYPE(prog) == &ProgramType) {
        /* The Program and the hint are borrowed (from the table, from the
         * value's type); user code run by the encoding (__index__, ...) may
         * drop both (set_backend() clears the table): hold them. */
        Py_INCREF(prog);
        Py_INCREF(hint);
        PyObject* r = Program_encode((Program*)prog, args[0]);
        Py_DECREF(prog);
        if (r == NULL) r = call_failed(PyEncodeFailed, hint, table, args[0]);
        Py_DECREF(hint);
        return r;
      }
      PyErr_Clear();
    }
  }
  return PyObject_Vectorcall(PyEncode, args, (size_t)nargs, kwnames);
}

static PyObject* entry_decode(PyObject* mod, PyObject* const* args, size_t nargsf,
                              PyObject* kwnames) {
  (void)mod;
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (nargs >= 2) {
    PyObject* table = pick_table(nargs, args, 2, kwnames);
    if (table != NULL) {
      PyObject* prog = PyDict_GetItemWithError(table, args[0]);
      if (prog != NULL && Py_TYPE(prog) == &ProgramType) {
        Py_buffer view;
        Ctx c;
        if (get_buffer(args[1], &view, &c) == 0) {
          /* borrowed from the table: a __post_init__ may clear it (set_backend()) */
          Py_INCREF(prog);
          PyObject* r = Program_run_whole((Program*)prog, &view, &c);
          Py_DECREF(prog);
          if (r == NULL) r = call_failed(PyDecodeFailed, args[0], table, args[1]);
          return r;
        }
        /* not a contiguous buffer: nothing has run; the Python decode() copies it */
      }
      PyErr_Clear();
    }
  }
  return PyObject_Vectorcall(PyDecode, args, (size_t)nargs, kwnames);
}

/* set_entries(portable_table, native_table, compact_table, py_encode, py_decode,
 *             encode_failed, decode_failed) */
static PyObject* mod_set_entries(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject* a[7];
  if (!PyArg_ParseTuple(args, "O!O!O!OOOO", &PyDict_Type, &a[0], &PyDict_Type, &a[1], &PyDict_Type,
                        &a[2], &a[3], &a[4], &a[5], &a[6]))
    return NULL;
  Py_XSETREF(FastPortable, Py_NewRef(a[0]));
  Py_XSETREF(FastNative, Py_NewRef(a[1]));
  Py_XSETREF(FastCompact, Py_NewRef(a[2]));
  Py_XSETREF(PyEncode, Py_NewRef(a[3]));
  Py_XSETREF(PyDecode, Py_NewRef(a[4]));
  Py_XSETREF(PyEncodeFailed, Py_NewRef(a[5]));
  Py_XSETREF(PyDecodeFailed, Py_NewRef(a[6]));
  Py_RETURN_NONE;
}

/* init(fail, trailing, Variant, monostate, nd_from, aslist, setorder) */
static PyObject* mod_init(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject* a[7];
  if (!PyArg_ParseTuple(args, "OOOOOOO", &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6]))
    return NULL;
  PyObject** slots[7] = {&Fail, &Trailing, &VariantCls, &MonostateObj, &NdFrom, &AsList, &SetOrder};
  for (int i = 0; i < 7; ++i) {
    Py_XSETREF(*slots[i], Py_NewRef(a[i]));
  }
  Py_RETURN_NONE;
}

/* slot_offset(descriptor) -> byte offset of a writable object __slots__ member, or None */
static PyObject* mod_slot_offset(PyObject* mod, PyObject* d) {
  (void)mod;
  if (Py_TYPE(d) != &PyMemberDescr_Type) Py_RETURN_NONE;
  PyMemberDef* m = ((PyMemberDescrObject*)d)->d_member;
  if (m->type != T_OBJECT_EX || (m->flags & READONLY)) Py_RETURN_NONE;
  return PyLong_FromSsize_t(m->offset);
}

/* ---------------------------------------------------------------------------------------------
 * Record logs (docs/wire-format.md section 13, bin_serializer/log.py): CRC32C and the block walk.
 *
 * CRC32C is the Castagnoli CRC (reflected polynomial 0x82F63B78). The state
 * passed around here is the register before the final xor. x86-64 CPUs with
 * SSE 4.2 compute it with the crc32 instruction (chosen at run time); every
 * other CPU (s390x, a big-endian one, included) uses slicing-by-8 tables,
 * which assemble their 32-bit words from single bytes, so the result does
 * not depend on the host's byte order. */

static uint32_t CrcTab[8][256];
static int CrcHw; /* 1: SSE 4.2 */

static void crc_init(void) {
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    CrcTab[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i)
    for (int t = 1; t < 8; ++t)
      CrcTab[t][i] = (CrcTab[t - 1][i] >> 8) ^ CrcTab[0][CrcTab[t - 1][i] & 0xFF];
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  CrcHw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
#endif
}

static uint32_t crc32c_sw(uint32_t c, const uint8_t* p, size_t n) {
  while (n >= 8) {
    uint32_t lo =
        c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
    uint32_t hi =
        (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
    c = CrcTab[7][lo & 0xFF] ^ CrcTab[6][(lo >> 8) & 0xFF] ^ CrcTab[5][(lo >> 16) & 0xFF] ^
        CrcTab[4][lo >> 24] ^ CrcTab[3][hi & 0xFF] ^ CrcTab[2][(hi >> 8) & 0xFF] ^
        CrcTab[1][(hi >> 16) & 0xFF] ^ CrcTab[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n--) c = CrcTab[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
  return c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t c, const uint8_t* p,
                                                            size_t n) {
  uint64_t c64 = c;
  while (n && ((uintptr_t)p & 7)) {
    c64 = __builtin_ia32_crc32qi((uint32_t)c64, *p++);
    --n;
  }
  while (n >= 8) {
    uint64_t v;
    memcpy(&v, p, 8); /* x86-64 is little-endian: the bytes in stream order */
    c64 = __builtin_ia32_crc32di(c64, v);
    p += 8;
    n -= 8;
  }
  while (n--) c64 = __builtin_ia32_crc32qi((uint32_t)c64, *p++);
  return (uint32_t)c64;
}
#endif

/* The CRC32C of n bytes (init and final xor 0xFFFFFFFF); `crc` continues an earlier result. */
static uint32_t crc32c(uint32_t crc, const uint8_t* p, size_t n) {
  uint32_t c = crc ^ 0xFFFFFFFFu;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (CrcHw) return crc32c_hw(c, p, n) ^ 0xFFFFFFFFu;
#endif
  return crc32c_sw(c, p, n) ^ 0xFFFFFFFFu;
}

/* crc32c(data, crc=0, software=False) -> int */
static PyObject* mod_crc32c(PyObject* mod, PyObject* args) {
  (void)mod;
  Py_buffer view;
  unsigned long crc = 0;
  int software = 0;
  if (!PyArg_ParseTuple(args, "y*|kp", &view, &crc, &software)) return NULL;
  if (crc > 0xFFFFFFFFul) {
    PyBuffer_Release(&view);
    PyErr_SetString(PyExc_ValueError, "crc must fit 32 bits");
    return NULL;
  }
  uint32_t r;
  if (software)
    r = crc32c_sw((uint32_t)crc ^ 0xFFFFFFFFu, view.buf, (size_t)view.len) ^ 0xFFFFFFFFu;
  else
    r = crc32c((uint32_t)crc, view.buf, (size_t)view.len);
  PyBuffer_Release(&view);
  return PyLong_FromUnsignedLong(r);
}

static PyObject* mod_crc_hw(PyObject* mod, PyObject* unused) {
  (void)mod;
  (void)unused;
  return PyBool_FromLong(CrcHw);
}

enum {
  LOG_VALID = 0,
  LOG_UNFINISHED = 1,
  LOG_BAD = 2,
  LOG_DECODE_FAILED = 3,
  LOG_UNMATCHED = 4,
  LOG_BAD_RECORD = 5
};

static inline uint32_t ld_u32(const uint8_t* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A shortest-form varint of at most maxb bytes before stop: 0 and *out, *after; -1 if none. */
static inline int log_varint(const uint8_t* b, Py_ssize_t pos, Py_ssize_t stop, int maxb,
                             uint64_t* out, Py_ssize_t* after) {
  uint64_t x = 0;
  for (int i = 0; i < maxb; ++i) {
    if (pos + i >= stop) return -1;
    uint8_t v = b[pos + i];
    x |= (uint64_t)(v & 0x7F) << (7 * i);
    if (!(v & 0x80)) {
      if (i && v == 0) return -1;
      *out = x;
      *after = pos + i + 1;
      return 0;
    }
  }
  return -1;
}

/* The checks of the block at x before its records (log.py _check_head):
 * LOG_VALID with *next the end of its body, or LOG_UNFINISHED / LOG_BAD. */
static int log_check_head(const uint8_t* b, Py_ssize_t x, Py_ssize_t end, Py_ssize_t max_body,
                          Py_ssize_t* next) {
  if (end - x < 16) return LOG_UNFINISHED;
  const uint8_t* h = b + x;
  if (memcmp(h, "BSLB", 4) != 0) return (h[0] | h[1] | h[2] | h[3]) == 0 ? LOG_UNFINISHED : LOG_BAD;
  /* the block is read after its magic: a log a writer maps in another
   * process publishes the magic last (log/format.hpp seal_block) */
  atomic_thread_fence(memory_order_acquire);
  if (crc32c(0, h, 12) != ld_u32(h + 12)) return LOG_BAD;
  uint32_t blen = ld_u32(h + 4);
  if (blen < 1 || blen > (1u << 28)) return LOG_BAD;
  Py_ssize_t start = x + 16;
  if ((Py_ssize_t)blen > end - start) return LOG_UNFINISHED;
  if ((Py_ssize_t)blen > max_body) return LOG_BAD;
  if (crc32c(0, b + start, blen) != ld_u32(h + 8)) return LOG_BAD;
  *next = start + (Py_ssize_t)blen;
  return LOG_VALID;
}

/* untracked=True (opt-in, like msgspec's Struct(gc=False)): an instance
 * whose referents are all untracked (ints, floats, strings, bytes, None,
 * other untracked instances; not a dict, a container even while CPython
 * leaves it untracked) can be in no reference cycle when it is made,
 * so the cycle collector need not visit it; it never re-tracks it, so a
 * cycle the caller builds through it later is not collected (a leak, not a
 * crash). Its own class is skipped: a heap type visits its type. */
static int log_visit_tracked(PyObject* o, void* self) {
  if (o == (PyObject*)Py_TYPE((PyObject*)self)) return 0;
  return PyObject_IS_GC(o) && (PyObject_GC_IsTracked(o) || PyDict_Check(o));
}

static void log_untrack_atomic(PyObject* v) {
  if (!PyObject_IS_GC(v) || !PyObject_GC_IsTracked(v)) return;
  traverseproc trav = Py_TYPE(v)->tp_traverse;
  if (trav != NULL && trav(v, log_visit_tracked, v) == 0) PyObject_GC_UnTrack(v);
}

/* log_blocks(buf, pos, end, ntypes, max_body, decoders, out, max_values, pairs, untracked)
 *   -> (status, pos, record_offset, type_index, exception, tracked)
 * Walks the blocks from pos while they are valid and out has fewer than
 * max_values items; the records of each valid block (its checksums and
 * framing checked first) are decoded and appended to out: decoders[t] is the
 * Program of type t, None to skip its records, False for a type no class
 * matches. Status LOG_VALID: pos is the first boundary not walked;
 * LOG_UNFINISHED / LOG_BAD: no valid block at pos; LOG_BAD_RECORD: the block
 * at pos passed its checks, its record at record_offset is not well formed
 * (the records before it are in out); LOG_DECODE_FAILED: the
 * record at record_offset did not decode (exception: what it raised, or
 * None when it did not end at its payload's end); LOG_UNMATCHED: the record
 * at record_offset has a type decoders gives False. pairs: out gets
 * (type_index, value) tuples instead of the values. untracked: see
 * log_untrack_atomic. tracked: how many of the values appended the cycle
 * collector tracks (the caller sizes its batches by it). out is the
 * caller's own list, which no one else sees or changes (log.py hands its
 * records out or copies them): it is left untracked when it holds no
 * tracked value. */
static PyObject* mod_log_blocks(PyObject* mod, PyObject* const* args, Py_ssize_t nargs) {
  (void)mod;
  if (nargs != 10 || !PyTuple_Check(args[5]) || !PyList_Check(args[6])) {
    PyErr_SetString(PyExc_TypeError, "log_blocks(buf, pos, end, ntypes, max_body, decoders, out, "
                                     "max_values, pairs, untracked)");
    return NULL;
  }
  Py_ssize_t pos = PyLong_AsSsize_t(args[1]);
  Py_ssize_t end = PyLong_AsSsize_t(args[2]);
  Py_ssize_t ntypes = PyLong_AsSsize_t(args[3]);
  Py_ssize_t max_body = PyLong_AsSsize_t(args[4]);
  Py_ssize_t max_values = PyLong_AsSsize_t(args[7]);
  if (PyErr_Occurred()) return NULL;
  int pairs = PyObject_IsTrue(args[8]);
  if (pairs < 0) return NULL;
  int untracked = PyObject_IsTrue(args[9]);
  if (untracked < 0) return NULL;
  PyObject* decoders = args[5];
  PyObject* out = args[6];
  if (PyTuple_GET_SIZE(decoders) != ntypes || ntypes < 1) {
    PyErr_SetString(PyExc_ValueError, "log_blocks: one decoder per type");
    return NULL;
  }
  for (Py_ssize_t i = 0; i < ntypes; ++i) {
    PyObject* d = PyTuple_GET_ITEM(decoders, i);
    if (d != Py_None && d != Py_False && Py_TYPE(d) != &ProgramType) {
      PyErr_SetString(PyExc_TypeError, "log_blocks: a decoder is a Program, None or False");
      return NULL;
    }
  }
  Py_buffer view;
  Ctx c;
  if (get_buffer(args[0], &view, &c) < 0) return NULL;
  if (pos < 0 || end < pos || end > c.end) {
    release_buffer(&view);
    PyErr_SetString(PyExc_ValueError, "log_blocks: positions outside the buffer");
    return NULL;
  }
  const uint8_t* b = c.buf;
  int status = LOG_VALID;
  Py_ssize_t rec_at = 0, rec_type = 0;
  PyObject* error = NULL;
  int failed = 0;
  Py_ssize_t ntracked = 0;
  Ctx rc = c; /* a record's: its end is the payload's */
  rc.untrack = untracked;
  int gc = gc_pause();
  while (pos < end && PyList_GET_SIZE(out) < max_values) {
    Py_ssize_t next = 0;
    status = log_check_head(b, pos, end, max_body, &next);
    if (status != LOG_VALID) break;
    Py_ssize_t r = pos + 16;
    while (r < next) {
      uint64_t t = 0, len = 0;
      Py_ssize_t p = r;
      Py_ssize_t at = r;
      /* each record's framing is checked as it is read: a bad one (a faulty
       * writer, the CRCs passed) is corruption at that record */
      if (log_varint(b, r, next, 2, &t, &p) < 0 || t >= (uint64_t)ntypes ||
          log_varint(b, p, next, 4, &len, &p) < 0 || len > (uint64_t)(next - p)) {
        status = LOG_BAD_RECORD;
        rec_at = at;
        break;
      }
      r = p + (Py_ssize_t)len;
      PyObject* d = PyTuple_GET_ITEM(decoders, (Py_ssize_t)t);
      if (d == Py_None) continue;
      if (d == Py_False) {
        status = LOG_UNMATCHED;
        rec_at = at;
        rec_type = (Py_ssize_t)t;
        break;
      }
      rc.end = r; /* the payload's end: a decoder never reads the next record */
      Py_ssize_t q = p;
      const Plan* root = ((Program*)d)->root;
      PyObject* v = root->kind == K_STRUCT && !(root->flags & F_RECURSIVE)
                        ? dec_struct(root, &rc, &q)
                        : dec(root, &rc, &q);
      if (v == NULL || q != r) {
        if (v == NULL) {
          error = fetch_exception();
          if (error == NULL) {
            failed = 1;
            break;
          }
        }
        Py_XDECREF(v);
        status = LOG_DECODE_FAILED;
        rec_at = at;
        rec_type = (Py_ssize_t)t;
        break;
      }
      if (untracked) log_untrack_atomic(v);
      ntracked += PyType_IS_GC(Py_TYPE(v)) && PyObject_GC_IsTracked(v);
      if (pairs) {
        PyObject* pair = Py_BuildValue("(nN)", (Py_ssize_t)t, v);
        if (pair == NULL) {
          failed = 1;
          break;
        }
        v = pair;
      }
      /* PyList_Append's own fast path, with the reference moved in */
      Py_ssize_t size = PyList_GET_SIZE(out);
      if (size < ((PyListObject*)out)->allocated) {
        PyList_SET_ITEM(out, size, v);
        Py_SET_SIZE(out, size + 1);
      } else {
        int rc2 = PyList_Append(out, v);
        Py_DECREF(v);
        if (rc2 < 0) {
          failed = 1;
          break;
        }
      }
    }
    if (failed || status != LOG_VALID) break;
    pos = next;
    /* a whole log may be one call (read_all): Ctrl-C is seen between blocks */
    if (PyErr_CheckSignals() < 0) {
      failed = 1;
      break;
    }
  }
  /* a batch that holds only untracked records is left out of the collector
   * too: else the young collection that follows the walk would visit every
   * record in it once more, for nothing */
  if (!pairs && ntracked == 0 && PyObject_GC_IsTracked(out)) PyObject_GC_UnTrack(out);
  gc_resume(gc);
  release_buffer(&view);
  if (failed) {
    Py_XDECREF(error);
    return NULL;
  }
  return Py_BuildValue("(innnNn)", status, pos, rec_at, rec_type,
                       error ? error : Py_NewRef(Py_None), ntracked);
}

/* Batches(source, on_rest=None): the items of the lists source yields, one
 * by one: what itertools.chain.from_iterable does, for the log reader's
 * batches, with no list iterator between (about 20 instructions a record
 * less). Errors source raises pass through; an item that is not a list is a
 * TypeError. close(), or the iterator's end of life, drops source and hands
 * the items of the current list not yet handed out to on_rest (one new
 * list; not called when there are none): a reader iterated, left, and
 * iterated again loses no record. */
typedef struct {
  PyObject_HEAD PyObject* source; /* NULL once exhausted or closed */
  PyObject* cur;                  /* the list being handed out, or NULL */
  Py_ssize_t i;                   /* the next item of cur */
  PyObject* on_rest;              /* callable, or NULL */
  PyObject* weakrefs;
} Batches;

static PyObject* Batches_new(PyTypeObject* tp, PyObject* args, PyObject* kw) {
  PyObject* src;
  PyObject* on_rest = Py_None;
  static char* names[] = {"source", "on_rest", NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:Batches", names, &src, &on_rest)) return NULL;
  if (on_rest != Py_None && !PyCallable_Check(on_rest)) {
    PyErr_SetString(PyExc_TypeError, "Batches: on_rest must be callable or None");
    return NULL;
  }
  PyObject* it = PyObject_GetIter(src);
  if (it == NULL) return NULL;
  Batches* self = (Batches*)tp->tp_alloc(tp, 0);
  if (self == NULL) {
    Py_DECREF(it);
    return NULL;
  }
  self->source = it;
  self->on_rest = on_rest == Py_None ? NULL : Py_NewRef(on_rest);
  return (PyObject*)self;
}

static int Batches_traverse(Batches* self, visitproc visit, void* arg) {
  Py_VISIT(self->source);
  Py_VISIT(self->cur);
  Py_VISIT(self->on_rest);
  return 0;
}

static int Batches_clear(Batches* self) {
  Py_CLEAR(self->source);
  Py_CLEAR(self->cur);
  Py_CLEAR(self->on_rest);
  return 0;
}

/* Ends the iteration: the source is dropped and what cur still holds goes
 * to on_rest. -1 with an exception set if on_rest failed. */
static int Batches_finish(Batches* self) {
  PyObject* cur = self->cur;
  PyObject* rest = NULL;
  if (cur != NULL && self->i < PyList_GET_SIZE(cur) && self->on_rest != NULL) {
    rest = PyList_GetSlice(cur, self->i, PyList_GET_SIZE(cur));
    if (rest == NULL) return -1;
  }
  Py_CLEAR(self->cur);
  Py_CLEAR(self->source);
  if (rest == NULL) return 0;
  PyObject* on_rest = Py_NewRef(self->on_rest);
  PyObject* r = PyObject_CallOneArg(on_rest, rest);
  Py_DECREF(on_rest);
  Py_DECREF(rest);
  if (r == NULL) return -1;
  Py_DECREF(r);
  return 0;
}

static PyObject* Batches_close(Batches* self, PyObject* unused) {
  (void)unused;
  if (Batches_finish(self) != 0) return NULL;
  Py_RETURN_NONE;
}

static void Batches_dealloc(Batches* self) {
  PyObject_GC_UnTrack(self);
  if (self->weakrefs != NULL) PyObject_ClearWeakRefs((PyObject*)self);
  if (self->cur != NULL && self->on_rest != NULL) {
    /* the records not handed out go back to the reader; an error there has
     * no caller to go to */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (Batches_finish(self) != 0) PyErr_WriteUnraisable((PyObject*)self);
    PyErr_Restore(type, value, tb);
  }
  Batches_clear(self);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

static PyObject* Batches_next(Batches* self) {
  for (;;) {
    PyObject* cur = self->cur;
    if (cur != NULL) {
      if (self->i < PyList_GET_SIZE(cur)) return Py_NewRef(PyList_GET_ITEM(cur, self->i++));
      Py_CLEAR(self->cur);
    }
    if (self->source == NULL) return NULL;
    PyObject* next = PyIter_Next(self->source);
    if (next == NULL) {
      if (!PyErr_Occurred()) Py_CLEAR(self->source);
      return NULL;
    }
    if (!PyList_Check(next)) {
      PyErr_SetString(PyExc_TypeError, "Batches: the source yields lists");
      Py_DECREF(next);
      return NULL;
    }
    self->cur = next;
    self->i = 0;
  }
}

static PyMethodDef Batches_methods[] = {
    {"close", (PyCFunction)Batches_close, METH_NOARGS,
     "ends the iteration; the items not handed out go to on_rest"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject BatchesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "bin_serializer._cext.Batches",
    .tp_basicsize = sizeof(Batches),
    .tp_dealloc = (destructor)Batches_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Batches(source, on_rest=None): the items of the lists source yields, one by one",
    .tp_traverse = (traverseproc)Batches_traverse,
    .tp_clear = (inquiry)Batches_clear,
    .tp_weaklistoffset = offsetof(Batches, weakrefs),
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)Batches_next,
    .tp_methods = Batches_methods,
    .tp_new = Batches_new,
};

/* The method table, one entry per line (clang-format 19 alternates between two layouts of it). */
/* clang-format off */
static PyMethodDef mod_methods[] = {
    {"crc32c", mod_crc32c, METH_VARARGS, "crc32c(data, crc=0, software=False) -> int: CRC32C (Castagnoli)"},
    {"log_blocks", (PyCFunction)(void (*)(void))mod_log_blocks, METH_FASTCALL,
     "log_blocks(buf, pos, end, ntypes, max_body, decoders, out, max_values, pairs, untracked) -> (status, pos, at, type, exc, tracked)"},
    {"crc32c_hardware", mod_crc_hw, METH_NOARGS, "crc32c_hardware() -> whether CRC32C uses the SSE 4.2 instruction"},
    {"slot_offset", mod_slot_offset, METH_O, "slot_offset(member_descriptor) -> offset or None"},
    {"set_entries", mod_set_entries, METH_VARARGS,
     "set_entries(portable, native, compact, py_encode, py_decode, on_encode, on_decode)"},
    {"encode", (PyCFunction)(void (*)(void))entry_encode, METH_FASTCALL | METH_KEYWORDS,
     "encode(obj, format='portable', *, schema=None, arrays=False) -> bytes: one message"},
    {"decode", (PyCFunction)(void (*)(void))entry_decode, METH_FASTCALL | METH_KEYWORDS,
     "decode(cls, data, format='portable', *, allow_trailing=False, arrays=False): one message"},
    {"init", mod_init, METH_VARARGS, "init(fail, trailing, Variant, monostate, nd_from, aslist, setorder)"},
    {NULL, NULL, 0, NULL}};
/* clang-format on */

static struct PyModuleDef moddef = {
    PyModuleDef_HEAD_INIT,
    "bin_serializer._cext",
    "The compiled bin_serializer codec (see _accel.py).",
    -1,
    mod_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__cext(void) {
  crc_init();
  if (PyType_Ready(&ProgramType) < 0 || PyType_Ready(&BatchesType) < 0) return NULL;
  EmptyTuple = PyTuple_New(0);
  if (EmptyTuple == NULL) return NULL;
  StrPortable = PyUnicode_InternFromString("portable");
  StrNative = PyUnicode_InternFromString("native");
  StrCompact = PyUnicode_InternFromString("compact");
  if (StrPortable == NULL || StrNative == NULL || StrCompact == NULL) return NULL;
  PyObject* m = PyModule_Create(&moddef);
  if (m == NULL) return NULL;
  Py_INCREF(&ProgramType);
  if (PyModule_AddObject(m, "Program", (PyObject*)&ProgramType) < 0) {
    Py_DECREF(&ProgramType);
    Py_DECREF(m);
    return NULL;
  }
  Py_INCREF(&BatchesType);
  if (PyModule_AddObject(m, "Batches", (PyObject*)&BatchesType) < 0) {
    Py_DECREF(&BatchesType);
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
