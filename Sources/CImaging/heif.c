// libheif: probe, decode (to 8-bit RGB, the image's rotation and mirroring applied) and metadata.
// libheif reports errors as values; nothing longjmps. Every path releases what it allocated. An
// error's message belongs to the context that made it: it is copied before the context is freed.
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <libheif/heif.h>
#include "imaging.h"

static int fail(img_result *result, struct heif_error error) {
    snprintf(result->message, sizeof result->message, "%s", error.message ? error.message : "libheif error");
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

// Opens the file's primary image. On success the caller releases *handle and frees *ctx.
static int open_primary(const unsigned char *data, size_t size, const img_limits *limits, struct heif_context **ctx,
                        struct heif_image_handle **handle, img_info *info, img_result *result) {
    memset(info, 0, sizeof *info);
    result->status = IMG_OK;
    result->warnings = 0;
    result->message[0] = 0;
    *handle = NULL;
    *ctx = heif_context_alloc();
    if (!*ctx) return result->status = IMG_ENOMEM;
    // libheif's own limit, which it checks on every image it builds (a grid's output size, each
    // tile): max_pixels as the square of a width. The declared sizes are checked again below.
    long long max_pixels = limits && limits->max_pixels > 0 ? limits->max_pixels : 100000000;
    int side = 1;
    while ((long long)(side + 1) * (side + 1) <= max_pixels && side < 1 << 16) side++;
    heif_context_set_maximum_image_size_limit(*ctx, side);
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

int img_heif_decode(const unsigned char *data, size_t size, const img_limits *limits,
                    img_info *info, unsigned char **pixels, int *width, int *height, img_result *result) {
    *pixels = NULL;
    struct heif_context *ctx;
    struct heif_image_handle *handle;
    int status = open_primary(data, size, limits, &ctx, &handle, info, result);
    if (status != IMG_OK) return status;
    // Both the displayed and the coded size count: rotation swaps them, a crop can hide a huge image.
    long long coded = (long long)heif_image_handle_get_ispe_width(handle) * heif_image_handle_get_ispe_height(handle);
    long long shown = (long long)info->width * info->height;
    if (limits && limits->max_pixels > 0 && (shown > limits->max_pixels || coded > limits->max_pixels)) {
        snprintf(result->message, sizeof result->message, "image %dx%d exceeds the %.4g MP limit",
                 info->width, info->height, limits->max_pixels / 1e6);
        heif_image_handle_release(handle);
        heif_context_free(ctx);
        return result->status = IMG_ETOOLARGE;
    }
    struct heif_image *image = NULL;
    struct heif_error error = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, NULL);
    if (error.code != heif_error_Ok) {
        status = fail(result, error);
        heif_image_handle_release(handle);
        heif_context_free(ctx);
        return status;
    }
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
