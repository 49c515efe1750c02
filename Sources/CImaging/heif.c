// libheif: probe, decode (to 8-bit RGB, the image's rotation and mirroring applied) and metadata.
// libheif reports errors as values; nothing longjmps. Every path releases what it allocated. An
// error's message belongs to the context that made it: it is copied before the context is freed.
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <dlfcn.h>
#include <pthread.h>
#include <libheif/heif.h>
#include "imaging.h"

// libheif is loaded on first use, not when the program starts: it pulls in its codecs (x265, aom,
// dav1d, libde265), ~6 ms of every `memories` command's start, which most commands never need.
// Each function this file calls is looked up once; the names below then mean the looked-up ones.
#define HEIF_FUNCTIONS(X) \
    X(heif_context_alloc) X(heif_context_free) X(heif_context_get_primary_image_handle) \
    X(heif_context_read_from_memory_without_copy) X(heif_context_set_maximum_image_size_limit) \
    X(heif_decode_image) X(heif_image_get_height) X(heif_image_get_plane_readonly) X(heif_image_get_width) \
    X(heif_image_handle_get_height) X(heif_image_handle_get_ispe_height) X(heif_image_handle_get_ispe_width) \
    X(heif_image_handle_get_list_of_metadata_block_IDs) X(heif_image_handle_get_list_of_thumbnail_IDs) \
    X(heif_image_handle_get_luma_bits_per_pixel) X(heif_image_handle_get_metadata) \
    X(heif_image_handle_get_metadata_content_type) X(heif_image_handle_get_metadata_size) \
    X(heif_image_handle_get_raw_color_profile) X(heif_image_handle_get_raw_color_profile_size) \
    X(heif_image_handle_get_thumbnail) X(heif_image_handle_get_width) X(heif_image_handle_has_alpha_channel) \
    X(heif_image_handle_release) X(heif_image_release)

#define HEIF_POINTER(name) __typeof__(name) *name;
static struct { HEIF_FUNCTIONS(HEIF_POINTER) } heif_lib;
static int heif_loaded;
static char heif_load_error[160];
static pthread_once_t heif_once = PTHREAD_ONCE_INIT;

static void heif_load(void) {
    void *library = dlopen("libheif.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(heif_load_error, sizeof heif_load_error, "HEIF support is not available: %s", why ? why : "libheif.so.1 could not be loaded");
        return;
    }
#define HEIF_LOOKUP(name) \
    if (!(*(void **)&heif_lib.name = dlsym(library, #name))) { \
        snprintf(heif_load_error, sizeof heif_load_error, "HEIF support is not available: libheif.so.1 lacks %s", #name); \
        return; \
    }
    HEIF_FUNCTIONS(HEIF_LOOKUP)
    heif_loaded = 1;
}

// From here on each libheif function named above is called through its looked-up pointer. A name
// missing here (or from the list above) is a link error, not a silent direct call: libheif is not
// linked.
#define heif_context_alloc heif_lib.heif_context_alloc
#define heif_context_free heif_lib.heif_context_free
#define heif_context_get_primary_image_handle heif_lib.heif_context_get_primary_image_handle
#define heif_context_read_from_memory_without_copy heif_lib.heif_context_read_from_memory_without_copy
#define heif_context_set_maximum_image_size_limit heif_lib.heif_context_set_maximum_image_size_limit
#define heif_decode_image heif_lib.heif_decode_image
#define heif_image_get_height heif_lib.heif_image_get_height
#define heif_image_get_plane_readonly heif_lib.heif_image_get_plane_readonly
#define heif_image_get_width heif_lib.heif_image_get_width
#define heif_image_handle_get_height heif_lib.heif_image_handle_get_height
#define heif_image_handle_get_ispe_height heif_lib.heif_image_handle_get_ispe_height
#define heif_image_handle_get_ispe_width heif_lib.heif_image_handle_get_ispe_width
#define heif_image_handle_get_list_of_metadata_block_IDs heif_lib.heif_image_handle_get_list_of_metadata_block_IDs
#define heif_image_handle_get_list_of_thumbnail_IDs heif_lib.heif_image_handle_get_list_of_thumbnail_IDs
#define heif_image_handle_get_luma_bits_per_pixel heif_lib.heif_image_handle_get_luma_bits_per_pixel
#define heif_image_handle_get_metadata heif_lib.heif_image_handle_get_metadata
#define heif_image_handle_get_metadata_content_type heif_lib.heif_image_handle_get_metadata_content_type
#define heif_image_handle_get_metadata_size heif_lib.heif_image_handle_get_metadata_size
#define heif_image_handle_get_raw_color_profile heif_lib.heif_image_handle_get_raw_color_profile
#define heif_image_handle_get_raw_color_profile_size heif_lib.heif_image_handle_get_raw_color_profile_size
#define heif_image_handle_get_thumbnail heif_lib.heif_image_handle_get_thumbnail
#define heif_image_handle_get_width heif_lib.heif_image_handle_get_width
#define heif_image_handle_has_alpha_channel heif_lib.heif_image_handle_has_alpha_channel
#define heif_image_handle_release heif_lib.heif_image_handle_release
#define heif_image_release heif_lib.heif_image_release

static int fail(img_result *result, struct heif_error error) {
    snprintf(result->message, sizeof result->message, "%s", error.message ? error.message : "libheif error");
    // libheif ends some messages with a newline.
    for (size_t n = strlen(result->message); n > 0 && (result->message[n - 1] == '\n' || result->message[n - 1] == ' '); n--)
        result->message[n - 1] = 0;
    if (error.subcode == heif_suberror_End_of_data) return result->status = IMG_ETRUNCATED;
    if (error.subcode == heif_suberror_Security_limit_exceeded) {
        const char *found = error.message ? strstr(error.message, "Image size") : NULL;
        char detail[150];
        snprintf(detail, sizeof detail, "%s", found ? found : "a security limit of libheif");
        for (size_t n = strlen(detail); n > 0 && (detail[n - 1] == '\n' || detail[n - 1] == ' ' || detail[n - 1] == ')'); n--) detail[n - 1] = 0;
        snprintf(result->message, sizeof result->message, "over the pixel limit (%s)", detail);
        return result->status = IMG_ETOOLARGE;
    }
    if (error.code == heif_error_Memory_allocation_error) return result->status = IMG_ENOMEM;
    if (error.code == heif_error_Unsupported_filetype || error.code == heif_error_Unsupported_feature)
        return result->status = IMG_EUNSUPPORTED;
    return result->status = IMG_ECORRUPT;
}

// The longest side libheif may read or build: twice the side of a square at the pixel limit
// (20000 for 100 MP), so a panorama fits. libheif 1.15 checks each side against one number and not
// a grid's canvas against the size the file declares, so this also bounds what a hostile grid can
// make libheif allocate: at most 4x the pixel limit.
static int longest_side(const img_limits *limits) {
    long long max_pixels = limits && limits->max_pixels > 0 ? limits->max_pixels : 100000000;
    int side = 1;
    while ((long long)(side + 1) * (side + 1) <= 4 * max_pixels && side < 1 << 16) side++;
    return side;
}

// Opens the file's primary image. On success the caller releases *handle and frees *ctx.
static int open_primary(const unsigned char *data, size_t size, const img_limits *limits, struct heif_context **ctx,
                        struct heif_image_handle **handle, img_info *info, img_result *result) {
    memset(info, 0, sizeof *info);
    result->status = IMG_OK;
    result->warnings = 0;
    result->message[0] = 0;
    *handle = NULL;
    *ctx = NULL;
    pthread_once(&heif_once, heif_load);
    if (!heif_loaded) {
        snprintf(result->message, sizeof result->message, "%s", heif_load_error);
        return result->status = IMG_EUNSUPPORTED;
    }
    *ctx = heif_context_alloc();
    if (!*ctx) return result->status = IMG_ENOMEM;
    // libheif's own limit is per side (width and height each), checked on every image it reads or
    // builds, a grid's output among them. The pixel count is checked by the caller, and before a
    // decode the limit is narrowed to the photo's own longest side.
    heif_context_set_maximum_image_size_limit(*ctx, longest_side(limits));
    struct heif_error error = heif_context_read_from_memory_without_copy(*ctx, data, size, NULL);
    if (error.code == heif_error_Ok) error = heif_context_get_primary_image_handle(*ctx, handle);
    if (error.code != heif_error_Ok) {
        // The message lives in the context: copy it before the context goes.
        int status = fail(result, error);
        heif_context_free(*ctx);
        *ctx = NULL;
        return status;
    }
    // The size as displayed: after the file's rotation (irot), mirroring (imir) and crop (clap).
    info->width = heif_image_handle_get_width(*handle);
    info->height = heif_image_handle_get_height(*handle);
    info->components = heif_image_handle_has_alpha_channel(*handle) ? 4 : 3;
    info->bit_depth = heif_image_handle_get_luma_bits_per_pixel(*handle);
    return IMG_OK;
}

int img_heif_probe(const unsigned char *data, size_t size, img_info *info, img_result *result) {
    struct heif_context *ctx;
    struct heif_image_handle *handle;
    int status = open_primary(data, size, NULL, &ctx, &handle, info, result);
    if (status != IMG_OK) return status;
    heif_image_handle_release(handle);
    heif_context_free(ctx);
    return IMG_OK;
}

// Decodes an image handle to interleaved 8-bit RGB, copied into a malloc'ed buffer.
static int decode_rgb(struct heif_image_handle *handle, unsigned char **pixels, int *width, int *height, img_result *result) {
    struct heif_image *image = NULL;
    struct heif_error error = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, NULL);
    if (error.code != heif_error_Ok) return fail(result, error);
    int status = IMG_OK;
    int w = heif_image_get_width(image, heif_channel_interleaved);
    int h = heif_image_get_height(image, heif_channel_interleaved);
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    if (!plane || w <= 0 || h <= 0 || stride < w * 3) {
        snprintf(result->message, sizeof result->message, "the decoder returned no pixels");
        status = result->status = IMG_ECORRUPT;
    } else if (!(*pixels = malloc((size_t)w * h * 3))) {
        status = result->status = IMG_ENOMEM;
    } else {
        for (int y = 0; y < h; y++) memcpy(*pixels + (size_t)y * w * 3, plane + (size_t)y * stride, (size_t)w * 3);
        *width = w;
        *height = h;
    }
    heif_image_release(image);
    return status;
}

// The embedded thumbnail whose longest side is the smallest still >= min_side, or NULL.
static struct heif_image_handle *embedded_thumbnail(struct heif_image_handle *handle, int min_side) {
    heif_item_id ids[4];
    int n = heif_image_handle_get_list_of_thumbnail_IDs(handle, ids, 4);
    struct heif_image_handle *best = NULL;
    int best_side = 0;
    for (int i = 0; i < n; i++) {
        struct heif_image_handle *thumb = NULL;
        if (heif_image_handle_get_thumbnail(handle, ids[i], &thumb).code != heif_error_Ok || !thumb) continue;
        int w = heif_image_handle_get_width(thumb), h = heif_image_handle_get_height(thumb);
        int side = w > h ? w : h;
        if (side >= min_side && (!best || side < best_side)) {
            if (best) heif_image_handle_release(best);
            best = thumb;
            best_side = side;
        } else {
            heif_image_handle_release(thumb);
        }
    }
    return best;
}

int img_heif_decode(const unsigned char *data, size_t size, const img_limits *limits, int thumbnail_side,
                    img_info *info, unsigned char **pixels, int *width, int *height, img_result *result) {
    *pixels = NULL;
    struct heif_context *ctx;
    struct heif_image_handle *handle;
    int status = open_primary(data, size, limits, &ctx, &handle, info, result);
    if (status != IMG_OK) return status;
    // Both the displayed and the coded size count: rotation swaps them, a crop can hide a huge image.
    int coded_w = heif_image_handle_get_ispe_width(handle), coded_h = heif_image_handle_get_ispe_height(handle);
    long long coded = (long long)coded_w * coded_h;
    long long shown = (long long)info->width * info->height;
    if (coded_w <= 0 || coded_h <= 0 || info->width <= 0 || info->height <= 0) {
        snprintf(result->message, sizeof result->message, "the image declares no size (%dx%d)", coded_w, coded_h);
        heif_image_handle_release(handle);
        heif_context_free(ctx);
        return result->status = IMG_ECORRUPT;
    }
    if (limits && limits->max_pixels > 0 && (shown > limits->max_pixels || coded > limits->max_pixels)) {
        snprintf(result->message, sizeof result->message, "image %dx%d exceeds the %.4g MP limit",
                 info->width, info->height, limits->max_pixels / 1e6);
        heif_image_handle_release(handle);
        heif_context_free(ctx);
        return result->status = IMG_ETOOLARGE;
    }
    // Nothing libheif builds from here on (a grid's canvas, each tile) may be wider or taller than
    // the photo says it is, rounded up to whole coding blocks: since Debian's libheif
    // 1.15.1-1+deb12u2 (GHSA-v8qw-hwjv-44hw) the limit is also checked against the size the HEVC
    // or AV1 bitstream codes, which is padded to its blocks (x265 codes a 32x48 photo as 64x64;
    // an AV1 superblock is 128).
    int longest = coded_w > coded_h ? coded_w : coded_h;
    if (info->width > longest) longest = info->width;
    if (info->height > longest) longest = info->height;
    int cap = longest_side(limits);
    int padded = (longest + 127) / 128 * 128;
    heif_context_set_maximum_image_size_limit(ctx, padded < cap ? padded : cap);
    // The photo is always decoded as every caller will decode it (8-bit RGB, turned and cropped),
    // which proves it whole; an embedded thumbnail at least thumbnail_side large, of the photo's
    // shape, then gives the pixels returned (as vips makes a HEIC's thumbnail). A thumbnail that
    // does not decode, or is shaped otherwise (a rotation or crop only the photo has), is not used.
    status = decode_rgb(handle, pixels, width, height, result);
    struct heif_image_handle *thumb = status == IMG_OK && thumbnail_side > 0 ? embedded_thumbnail(handle, thumbnail_side) : NULL;
    if (thumb) {
        int tw = heif_image_handle_get_width(thumb), th = heif_image_handle_get_height(thumb);
        double shape = (double)tw * info->height / ((double)th * info->width);
        unsigned char *small = NULL;
        int sw = 0, sh = 0;
        img_result ignored = {0};
        if (shape > 0.98 && shape < 1.02 && tw <= info->width && th <= info->height
            && decode_rgb(thumb, &small, &sw, &sh, &ignored) == IMG_OK) {
            free(*pixels);
            *pixels = small;
            *width = sw;
            *height = sh;
        } else {
            free(small);
        }
        heif_image_handle_release(thumb);
    }
    if (status != IMG_OK) {
        free(*pixels);
        *pixels = NULL;
    }
    heif_image_handle_release(handle);
    heif_context_free(ctx);
    return status;
}

int img_heif_metadata(const unsigned char *data, size_t size, int kind, unsigned char **out, size_t *out_size) {
    *out = NULL;
    *out_size = 0;
    img_info info;
    img_result result;
    struct heif_context *ctx;
    struct heif_image_handle *handle;
    if (open_primary(data, size, NULL, &ctx, &handle, &info, &result) != IMG_OK) return -1;
    int found = -1;
    if (kind == IMG_META_EXIF) {
        heif_item_id id;
        if (heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) == 1) {
            size_t n = heif_image_handle_get_metadata_size(handle, id);
            unsigned char *block = n >= 4 ? malloc(n) : NULL;
            if (block && heif_image_handle_get_metadata(handle, id, block).code == heif_error_Ok) {
                // The block starts with the offset of the TIFF header after these four bytes.
                size_t skip = ((size_t)block[0] << 24 | (size_t)block[1] << 16 | (size_t)block[2] << 8 | block[3]);
                if (skip <= n - 4 && (*out = malloc(6 + n - 4 - skip))) {
                    memcpy(*out, "Exif\0\0", 6);
                    memcpy(*out + 6, block + 4 + skip, n - 4 - skip);
                    *out_size = 6 + n - 4 - skip;
                    found = 0;
                }
            }
            free(block);
        }
    } else if (kind == IMG_META_XMP) {
        heif_item_id ids[8];
        int n = heif_image_handle_get_list_of_metadata_block_IDs(handle, "mime", ids, 8);
        for (int i = 0; i < n && found != 0; i++) {
            const char *type = heif_image_handle_get_metadata_content_type(handle, ids[i]);
            if (!type || strcmp(type, "application/rdf+xml") != 0) continue;
            size_t size = heif_image_handle_get_metadata_size(handle, ids[i]);
            if (size > 0 && (*out = malloc(size)) && heif_image_handle_get_metadata(handle, ids[i], *out).code == heif_error_Ok) {
                *out_size = size;
                found = 0;
            } else {
                free(*out);
                *out = NULL;
            }
        }
    } else if (kind == IMG_META_ICC) {
        size_t n = heif_image_handle_get_raw_color_profile_size(handle);
        if (n > 0 && (*out = malloc(n)) && heif_image_handle_get_raw_color_profile(handle, *out).code == heif_error_Ok) {
            *out_size = n;
            found = 0;
        } else {
            free(*out);
            *out = NULL;
        }
    }
    heif_image_handle_release(handle);
    heif_context_free(ctx);
    return found;
}
