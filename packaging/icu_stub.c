/*
 * Stand-ins for ICU's libicuuc.so.NN (-DICU_COMMON) and libicui18n.so.NN (-DICU_I18N) in the
 * Linux build (build.spec), beside the data-less libicudata of packaging/icudata_stub.c.
 *
 * Without ICU's data (icudata_stub.c says why the app needs none), ICU's code libraries are
 * 7 MB that can only fail: QtCore links them for 31 functions, which open collators,
 * converters and calendars (all made from the data) or map case for a locale. Each stand-in
 * below reports failure (U_UNSUPPORTED_ERROR through the UErrorCode it is given, or an empty
 * result) and Qt takes its own path, as it already does when the data is missing: QCollator
 * compares plainly, QStringConverter knows its built-in UTF and Latin-1 codecs only,
 * QTimeZone's display names are IDs, and QLocale::toUpper/toLower use Qt's own case tables.
 * Types follow ICU's C API (unicode/ucnv.h, ucol.h, ucal.h, ustring.h); no ICU header needed.
 *
 * Build: cc -shared -fPIC -DICU_COMMON -DICU_SUFFIX=_73 -Wl,-soname,libicuuc.so.73 ...
 *        cc -shared -fPIC -DICU_I18N -DICU_SUFFIX=_73 -Wl,-soname,libicui18n.so.73 ...
 */
#include <stddef.h>
#include <stdint.h>

#ifndef ICU_SUFFIX
#error "define ICU_SUFFIX as _NN, NN being ICU's major version"
#endif
#define JOIN2(a, b) a##b
#define JOIN(a, b) JOIN2(a, b)
#define ICU(name) JOIN(name, ICU_SUFFIX) /* default visibility: exported */

typedef uint16_t UChar;
typedef int32_t UChar32;
typedef int8_t UBool;
typedef int UErrorCode; /* enum; > 0 is a failure */
typedef int UEnum;      /* any of ICU's option enums */
typedef struct opaque_handle Handle;
typedef void (*Callback)(void);

enum { U_UNSUPPORTED_ERROR = 16 };

static void fail(UErrorCode *status) {
    if (status != NULL && *status <= 0) /* ICU keeps an earlier failure */
        *status = U_UNSUPPORTED_ERROR;
}

#ifdef ICU_COMMON
Handle *ICU(ucnv_open)(const char *name, UErrorCode *err) { fail(err); return NULL; }
void ICU(ucnv_close)(Handle *cnv) { (void)cnv; }
void ICU(ucnv_reset)(Handle *cnv) { (void)cnv; }
const char *ICU(ucnv_getName)(const Handle *cnv, UErrorCode *err) { fail(err); return NULL; }
const char *ICU(ucnv_getStandardName)(const char *name, const char *standard, UErrorCode *err) {
    fail(err);
    return NULL;
}
int32_t ICU(ucnv_countAvailable)(void) { return 0; }
const char *ICU(ucnv_getAvailableName)(int32_t n) { (void)n; return NULL; }
int8_t ICU(ucnv_getMaxCharSize)(const Handle *cnv) { (void)cnv; return 4; }
int32_t ICU(ucnv_toUCountPending)(const Handle *cnv, UErrorCode *err) { fail(err); return 0; }
int32_t ICU(ucnv_fromUCountPending)(const Handle *cnv, UErrorCode *err) { fail(err); return 0; }
void ICU(ucnv_toUnicode)(Handle *cnv, UChar **target, const UChar *target_limit,
                         const char **source, const char *source_limit, int32_t *offsets,
                         UBool flush, UErrorCode *err) {
    fail(err);
}
void ICU(ucnv_fromUnicode)(Handle *cnv, char **target, const char *target_limit,
                           const UChar **source, const UChar *source_limit, int32_t *offsets,
                           UBool flush, UErrorCode *err) {
    fail(err);
}
void ICU(ucnv_setToUCallBack)(Handle *cnv, Callback action, const void *context,
                              Callback *old_action, const void **old_context, UErrorCode *err) {
    fail(err);
}
void ICU(ucnv_setFromUCallBack)(Handle *cnv, Callback action, const void *context,
                                Callback *old_action, const void **old_context,
                                UErrorCode *err) {
    fail(err);
}
void ICU(ucnv_getToUCallBack)(const Handle *cnv, Callback *action, const void **context) {
    if (action != NULL) *action = NULL;
    if (context != NULL) *context = NULL;
}
void ICU(ucnv_getFromUCallBack)(const Handle *cnv, Callback *action, const void **context) {
    if (action != NULL) *action = NULL;
    if (context != NULL) *context = NULL;
}
void ICU(ucnv_cbToUWriteUChars)(void *args, const UChar *source, int32_t length,
                                int32_t offset_index, UErrorCode *err) {
    fail(err);
}
void ICU(ucnv_cbFromUWriteUChars)(void *args, const UChar **source, const UChar *source_limit,
                                  int32_t offset_index, UErrorCode *err) {
    fail(err);
}
/* the substitution callbacks: Qt passes their addresses; no converter ever calls them here */
void ICU(UCNV_TO_U_CALLBACK_SUBSTITUTE)(const void *context, void *args, const char *units,
                                        int32_t length, UEnum reason, UErrorCode *err) {
    fail(err);
}
void ICU(UCNV_FROM_U_CALLBACK_SUBSTITUTE)(const void *context, void *args, const UChar *units,
                                          int32_t length, UChar32 code_point, UEnum reason,
                                          UErrorCode *err) {
    fail(err);
}
int32_t ICU(u_strToUpper)(UChar *dest, int32_t capacity, const UChar *src, int32_t length,
                          const char *locale, UErrorCode *err) {
    fail(err);
    return 0;
}
int32_t ICU(u_strToLower)(UChar *dest, int32_t capacity, const UChar *src, int32_t length,
                          const char *locale, UErrorCode *err) {
    fail(err);
    return 0;
}
#endif

#ifdef ICU_I18N
Handle *ICU(ucol_open)(const char *locale, UErrorCode *status) { fail(status); return NULL; }
void ICU(ucol_close)(Handle *coll) { (void)coll; }
void ICU(ucol_setAttribute)(Handle *coll, UEnum attr, UEnum value, UErrorCode *status) {
    fail(status);
}
int32_t ICU(ucol_strcoll)(const Handle *coll, const UChar *source, int32_t source_length,
                          const UChar *target, int32_t target_length) {
    return 0; /* UCOL_EQUAL; never reached: no collator opens */
}
int32_t ICU(ucol_getSortKey)(const Handle *coll, const UChar *source, int32_t length,
                             uint8_t *result, int32_t capacity) {
    return 0; /* "an error occurred", in ICU's terms */
}
Handle *ICU(ucal_open)(const UChar *zone, int32_t length, const char *locale, UEnum type,
                       UErrorCode *status) {
    fail(status);
    return NULL;
}
void ICU(ucal_close)(Handle *cal) { (void)cal; }
int32_t ICU(ucal_getCanonicalTimeZoneID)(const UChar *id, int32_t length, UChar *result,
                                         int32_t capacity, UBool *is_system_id,
                                         UErrorCode *status) {
    fail(status);
    return 0;
}
int32_t ICU(ucal_getTimeZoneDisplayName)(const Handle *cal, UEnum type, const char *locale,
                                         UChar *result, int32_t capacity, UErrorCode *status) {
    fail(status);
    return 0;
}
#endif
