/*
 * A data-less stand-in for ICU's libicudata.so.NN in the Linux build (build.spec).
 *
 * PySide6's QtCore links ICU, whose data library is 32 MB of collation, converter and
 * break-iterator tables. The app uses none of them: Qt lays out text with HarfBuzz and its own
 * Unicode tables, formats numbers and dates from its own CLDR copy, reads time zones from the
 * system's tzdata, and only UTF-8 crosses its boundaries. ICU's case and normalization
 * properties are compiled into libicuuc, not this library. ICU accepts a common-data package
 * whose table of contents is empty (the same shape as ICU's own "stubdata" build) and reports
 * U_MISSING_RESOURCE_ERROR for anything looked up in it, which Qt handles (QCollator, for
 * one, falls back to plain comparison).
 *
 * Build: cc -shared -fPIC -DICU_DATA_SYMBOL=icudt73_dat -Wl,-soname,libicudata.so.73 ...
 */
#include <stdint.h>

#ifndef ICU_DATA_SYMBOL
#error "define ICU_DATA_SYMBOL as icudtNN_dat, NN being ICU's major version"
#endif

struct empty_common_data {
    /* MappedData: size of the whole header, then the magic bytes 0xda 0x27 */
    uint16_t header_size;
    uint8_t magic1, magic2;
    /* UDataInfo (20 bytes) */
    uint16_t info_size, info_reserved;
    uint8_t big_endian, charset_family, sizeof_uchar, info_reserved_byte;
    uint8_t data_format[4], format_version[4], data_version[4];
    uint8_t padding[8]; /* pads the header to 32 bytes */
    /* table of contents: an entry count, a reserved word, then no entries */
    uint32_t count, reserved;
    uint32_t no_entry[2];
};

__attribute__((visibility("default"), aligned(16)))
const struct empty_common_data ICU_DATA_SYMBOL = {
    32, 0xda, 0x27,
    20, 0,
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    1,
#else
    0,
#endif
    0 /* ASCII family */, 2 /* sizeof(UChar) */, 0,
    {'T', 'o', 'C', 'P'}, {1, 0, 0, 0}, {0, 0, 0, 0},
    {0},
    0, 0,
    {0, 0},
};
