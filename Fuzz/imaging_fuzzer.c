// libFuzzer harness for the C image wrapper: every input goes through probe, full and scaled
// decode (JPEG, PNG, HEIF, WebP by signature), EXIF and ICC reading, resize, orientation and both
// encoders, as an import and an export would.
// Built by scripts/fuzz-imaging.sh with -fsanitize=fuzzer,address,undefined.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "imaging.h"

static void exercise(const unsigned char *rgb, int w, int h) {
    int tw = w > 16 ? 16 : w, th = h > 16 ? 16 : h;
    unsigned char *small = malloc((size_t)tw * th * 3);
    unsigned char *turned = malloc((size_t)tw * th * 3);
    if (small && turned && img_resize_area(rgb, w, h, small, tw, th) == 0) {
        int ow, oh;
        img_orient(small, tw, th, 1 + (w + h) % 8, turned, &ow, &oh);
        unsigned char *out = NULL;
        size_t size = 0;
        img_result result;
        if (img_jpeg_encode(turned, ow, oh, 75, (w & 1), NULL, 0, NULL, 0, &out, &size, &result) == IMG_OK) img_free(out);
        out = NULL;
        if (img_png_encode(turned, ow, oh, NULL, 0, &out, &size, &result) == IMG_OK) img_free(out);
    }
    free(small);
    free(turned);
}

// A HEIF or WebP file's EXIF and ICC blocks, the EXIF then read as an import reads it.
static void metadata(int (*read)(const unsigned char *, size_t, int, unsigned char **, size_t *),
                     const uint8_t *data, size_t size) {
    for (int kind = IMG_META_EXIF; kind <= IMG_META_XMP; kind++) {
        unsigned char *block = NULL;
        size_t block_size = 0;
        if (read(data, size, kind, &block, &block_size) != 0) continue;
        if (kind == IMG_META_EXIF) {
            img_exif exif;
            img_exif_read(block, block_size, &exif);
            unsigned char *normalized = NULL;
            size_t normalized_size = 0;
            if (img_exif_normalized(block, block_size, &normalized, &normalized_size) == 0) img_free(normalized);
        }
        if (kind == IMG_META_XMP) {
            img_xmp xmp;
            img_xmp_dates((const char *)block, block_size, &xmp);
        }
        if (kind == IMG_META_ICC) {
            unsigned char rgb[12] = { 0, 0, 0, 255, 255, 255, 200, 100, 50, 10, 200, 30 };
            img_rgb_to_srgb(rgb, 4, block, block_size);
        }
        img_free(block);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    img_info info;
    img_result result;
    img_limits limits = { 4000000, 100, 1 << 20, 1000, 400000000, 64 << 20, 1000000000 };  // small limits keep each run fast
    unsigned char *pixels = NULL;
    int w = 0, h = 0;
    img_exif exif;
    img_exif_read(data, size, &exif);
    img_xmp xmp;
    img_xmp_dates((const char *)data, size, &xmp);
    unsigned char *normalized = NULL;
    size_t normalized_size = 0;
    if (img_exif_normalized(data, size, &normalized, &normalized_size) == 0) img_free(normalized);
    if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8) {
        img_jpeg_probe(data, size, &info, &result);
        for (int scale = 1; scale <= 8; scale *= 8) {
            if (img_jpeg_decode(data, size, scale, &limits, &info, &pixels, &w, &h, &result) == IMG_OK) {
                exercise(pixels, w, h);
                img_free(pixels);
                pixels = NULL;
            }
        }
    } else if (size >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0) {
        img_webp_probe(data, size, &info, &result);
        for (int side = 0; side <= 16; side += 16) {
            if (img_webp_decode(data, size, side, &limits, &info, &pixels, &w, &h, &result) == IMG_OK) {
                exercise(pixels, w, h);
                img_free(pixels);
                pixels = NULL;
            }
        }
        metadata(img_webp_metadata, data, size);
    } else if (size >= 12 && memcmp(data + 4, "ftyp", 4) == 0) {
        img_heif_probe(data, size, &info, &result);
        if (img_heif_decode(data, size, &limits, (size & 1) ? 16 : 0, &info, &pixels, &w, &h, &result) == IMG_OK) {
            exercise(pixels, w, h);
            img_free(pixels);
        }
        metadata(img_heif_metadata, data, size);
    } else {
        unsigned char *icc = NULL;
        size_t icc_size = 0;
        if (img_png_icc(data, size, &icc, &icc_size) == 0) {
            unsigned char rgb[6] = { 0, 0, 0, 200, 100, 50 };
            img_rgb_to_srgb(rgb, 2, icc, icc_size);
            img_free(icc);
        }
        img_png_probe(data, size, &info, &result);
        if (img_png_decode(data, size, &limits, (size & 2) ? 8 : 0, &info, &pixels, &w, &h, &result) == IMG_OK) {
            exercise(pixels, w, h);
            img_free(pixels);
        }
    }
    return 0;
}
