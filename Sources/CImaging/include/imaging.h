// CImaging: thin C wrappers over libjpeg-turbo, libpng, libheif, libwebp and libexif.
//
// Every entry point runs the library calls under a setjmp of its own: libjpeg's error_exit and
// libpng's error callback longjmp back here, never across a Swift frame. Each returns 0 on
// success or an IMG_E* status, with the library's message in result->message, and frees
// everything it allocated on every path. Nothing calls exit().
#ifndef CIMAGING_H
#define CIMAGING_H

#include <stddef.h>

enum {
    IMG_OK = 0,
    IMG_ECORRUPT = 1,    // the library reported an error (bad data, bad header, CRC)
    IMG_ETRUNCATED = 2,  // data ended early (or warnings that mean lost data)
    IMG_ETOOLARGE = 3,   // pixel count, dimension or scan limit exceeded
    IMG_ENOMEM = 4,
    IMG_EUNSUPPORTED = 5
};

typedef struct {
    int status;
    int warnings;          // data-loss warnings seen (JPEG)
    char message[200];
    long long extraneous;  // JPEG: bytes libjpeg skipped as not image data (between segments or scans)
} img_result;

typedef struct {
    int width, height;
    int components;        // channels in the file (JPEG components; PNG channels)
    int color_type;        // JPEG: J_COLOR_SPACE of the file; PNG: color type
    int bit_depth;
    int progressive;       // JPEG progressive / PNG interlaced
    int scans;             // JPEG scans read
    long long coefficient_bytes; // JPEG of several scans: what libjpeg keeps of its coefficients until the last
} img_info;

typedef struct {
    long long max_pixels;  // refuse images with more pixels (checked before any large allocation)
    int max_scans;         // refuse progressive JPEGs with more scans
    size_t max_chunk;      // PNG: largest ancillary chunk kept in memory
    int max_frames;        // animations: refuse more frames (0: no limit)
    long long max_animation_pixels; // animations: refuse when canvas width x height x frames is more (0: no limit)
    long long max_working_bytes;    // refuse a decode whose own whole-image arrays need more (JPEG of several
                                    // scans: its coefficients; lossless WebP: its ARGB pixels) (0: no limit)
    long long max_scan_work;        // JPEG: refuse when scans read x coefficients exceeds this (0: no limit)
} img_limits;

/// Reads the header only.
int img_jpeg_probe(const unsigned char *data, size_t size, img_info *info, img_result *result);
int img_png_probe(const unsigned char *data, size_t size, img_info *info, img_result *result);

/// Decodes every scan to 8-bit RGB at 1/scale_denom size (1, 2, 4 or 8). *pixels is malloc'ed.
int img_jpeg_decode(const unsigned char *data, size_t size, int scale_denom, const img_limits *limits,
                    img_info *info, unsigned char **pixels, int *width, int *height, img_result *result);
/// Decodes to 8-bit RGB, alpha composited on white, 16-bit scaled, palette and grey expanded.
/// max_side > 0: a non-interlaced image is reduced while it is read, by the largest whole factor that keeps its longest side at least max_side (0: full size).
int img_png_decode(const unsigned char *data, size_t size, const img_limits *limits, int max_side,
                   img_info *info, unsigned char **pixels, int *width, int *height, img_result *result);

/// HEIF/HEIC (and AVIF where libheif decodes it): the primary image, its rotation, mirroring and
/// crop applied; info->width/height are the displayed size. thumbnail_side > 0: when the file embeds a
/// thumbnail at least that large, the photo is decoded only to prove it whole and the pixels returned
/// are the thumbnail's (0: the photo's).
int img_heif_probe(const unsigned char *data, size_t size, img_info *info, img_result *result);
int img_heif_decode(const unsigned char *data, size_t size, const img_limits *limits, int thumbnail_side,
                    img_info *info, unsigned char **pixels, int *width, int *height, img_result *result);
/// WebP, still or animated (info->progressive set), alpha composited on white. An animation's first
/// frame is decoded and placed on its canvas; the others are demuxed (chunks and bitstream headers
/// read) and none is decoded, so the work is bounded by the canvas and the file, not by the
/// frame count (limits->max_frames and max_animation_pixels refuse the rest). max_side > 0: an image
/// (or first frame) larger than that is scaled by the decoder to fit it (0: full size).
int img_webp_probe(const unsigned char *data, size_t size, img_info *info, img_result *result);
int img_webp_decode(const unsigned char *data, size_t size, int max_side, const img_limits *limits,
                    img_info *info, unsigned char **pixels, int *width, int *height, img_result *result);

/// An animation of `frames` frames on a width x height canvas against limits->max_frames and
/// max_animation_pixels (IMG_ETOOLARGE, the limit in result->message); no frames is IMG_ECORRUPT.
int img_animation_check(long long frames, int width, int height, const img_limits *limits, img_result *result);

enum { IMG_META_EXIF = 1, IMG_META_ICC = 2, IMG_META_XMP = 3 };
/// A metadata block, malloc'ed in *out: EXIF as "Exif\0\0"+TIFF (what img_exif_read takes), or the
/// ICC profile. Returns 0 when found.
int img_heif_metadata(const unsigned char *data, size_t size, int kind, unsigned char **out, size_t *out_size);
int img_webp_metadata(const unsigned char *data, size_t size, int kind, unsigned char **out, size_t *out_size);

/// Encodes RGB. exif (the TIFF payload with its "Exif\0\0" header) is written as APP1 and icc (an
/// ICC profile) as APP2 ICC_PROFILE segments, when given.
int img_jpeg_encode(const unsigned char *rgb, int width, int height, int quality, int progressive,
                    const unsigned char *exif, size_t exif_size, const unsigned char *icc, size_t icc_size,
                    unsigned char **out, size_t *out_size, img_result *result);
/// Encodes RGB; icc, when given, as an iCCP chunk.
int img_png_encode(const unsigned char *rgb, int width, int height, const unsigned char *icc, size_t icc_size,
                   unsigned char **out, size_t *out_size, img_result *result);

/// The ICC profile of a PNG (its iCCP chunk, decompressed), malloc'ed. Returns 0 when found.
int img_png_icc(const unsigned char *data, size_t size, unsigned char **out, size_t *out_size);
/// 0 when `icc` is a whole ICC profile LittleCMS reads, its header's size the block's; -1 otherwise.
int img_icc_valid(const unsigned char *icc, size_t icc_size);
/// Converts 8-bit RGB in place from an RGB ICC profile to sRGB (LittleCMS, perceptual intent).
/// Returns 0 when converted, -1 when the profile is not an RGB profile LittleCMS can use.
int img_rgb_to_srgb(unsigned char *rgb, size_t pixels, const unsigned char *icc, size_t icc_size);

/// Area-average downscale of RGB (every source pixel contributes by its covered area).
int img_resize_area(const unsigned char *src, int sw, int sh, unsigned char *dst, int dw, int dh);
/// Applies EXIF orientation 1–8 to RGB; dst must hold w*h*3 bytes; *ow, *oh get the new size.
int img_orient(const unsigned char *src, int w, int h, int orientation, unsigned char *dst, int *ow, int *oh);

typedef struct {
    int orientation;             // 0 when absent
    char date_time_original[32];
    char offset_time_original[16];
    char make[64];
    char model[64];
    char subsec_time_original[16];
} img_exif;

/// Reads EXIF from a JPEG file in memory, or from "Exif\0\0"+TIFF data. Returns 0 when found.
int img_exif_read(const unsigned char *data, size_t size, img_exif *out);
/// Copies EXIF with the orientation set to 1 (the pixels were rotated). *out is malloc'ed.
int img_exif_normalized(const unsigned char *data, size_t size, unsigned char **out, size_t *out_size);

enum { IMG_XMP_FIELD = 48 };
typedef struct {
    char date_time_original[IMG_XMP_FIELD];  // exif:DateTimeOriginal
    char create_date[IMG_XMP_FIELD];         // xmp:CreateDate
    char date_created[IMG_XMP_FIELD];        // photoshop:DateCreated
} img_xmp;

/// The capture dates of an XMP packet (ISO 8601 text as written). Returns 0 when it parsed.
int img_xmp_dates(const char *xml, size_t size, img_xmp *out);

void img_free(void *p);

#endif
