// libwebp: probe, decode (still, or the first frame of an animation, the others only demuxed; alpha
// composited on white) and metadata chunks. libwebp reports errors as status codes; nothing longjmps.
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <webp/decode.h>
#include <webp/demux.h>
#include "imaging.h"

static int fail(img_result *result, VP8StatusCode code) {
    static const char *names[] = { "ok", "out of memory", "invalid parameter", "bitstream error",
                                   "unsupported feature", "suspended", "user abort", "not enough data" };
    snprintf(result->message, sizeof result->message, "%s", code >= 0 && code <= 7 ? names[code] : "decoder error");
    if (code == VP8_STATUS_NOT_ENOUGH_DATA) return result->status = IMG_ETRUNCATED;
    if (code == VP8_STATUS_OUT_OF_MEMORY) return result->status = IMG_ENOMEM;
    if (code == VP8_STATUS_UNSUPPORTED_FEATURE) return result->status = IMG_EUNSUPPORTED;
    return result->status = IMG_ECORRUPT;
}

int img_webp_probe(const unsigned char *data, size_t size, img_info *info, img_result *result) {
    memset(info, 0, sizeof *info);
    result->status = IMG_OK;
    result->warnings = 0;
    result->message[0] = 0;
    WebPBitstreamFeatures features;
    VP8StatusCode code = WebPGetFeatures(data, size, &features);
    if (code != VP8_STATUS_OK) return fail(result, code);
    info->width = features.width;
    info->height = features.height;
    info->components = features.has_alpha ? 4 : 3;
    info->bit_depth = 8;
    info->progressive = features.has_animation;   // for WebP: animated
    info->color_type = features.format;           // 0 mixed, 1 lossy, 2 lossless
    return IMG_OK;
}

// RGBA to RGB on a white background, in place.
static void flatten(unsigned char *rgba, size_t count) {
    for (size_t i = 0; i < count; i++) {
        unsigned a = rgba[i * 4 + 3];
        for (int c = 0; c < 3; c++) rgba[i * 3 + c] = (unsigned char)((rgba[i * 4 + c] * a + 255 * (255 - a) + 127) / 255);
    }
}

// Whether a bitstream of width x height needs more whole-image memory than the limit allows (the
// message and status set when it does). A lossless one is decoded through whole-image ARGB, 4 bytes
// a pixel; a lossy one's transparency (its ALPH chunk, itself a lossless bitstream) through a whole
// alpha plane and, unless the encoder kept it to 8 bits, whole-image ARGB too: 5 bytes a pixel
// (a 10000x10000 lossy WebP with transparency took 525 MB in 209 kB). A lossy one without
// transparency is decoded a row of blocks at a time.
static int whole_image_too_large(int width, int height, int format, int has_alpha, const img_limits *limits, img_result *result) {
    int lossless = format == 2;
    if (!lossless && !has_alpha) return 0;
    long long bytes = (long long)width * height * (lossless ? 4 : 5);
    if (!limits || limits->max_working_bytes <= 0 || bytes <= limits->max_working_bytes) return 0;
    snprintf(result->message, sizeof result->message,
             lossless ? "a lossless %dx%d WebP needs %lld MB to decode (its pixels, kept whole), over the %lld MB limit"
                      : "a %dx%d WebP with transparency needs %lld MB to decode (its transparency, kept whole), over the %lld MB limit",
             width, height, bytes >> 20, limits->max_working_bytes >> 20);
    result->status = IMG_ETOOLARGE;
    return 1;
}

// Decodes one bitstream (VP8 or VP8L, with its ALPH chunk; a whole file or an animation frame) to
// RGBA at out_w x out_h, scaled by the decoder when that is not its own size.
static int decode_rgba(const unsigned char *data, size_t size, int width, int height, int out_w, int out_h,
                       unsigned char *rgba, img_result *result) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return result->status = IMG_ECORRUPT;
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    if (out_w != width || out_h != height) {
        config.options.use_scaling = 1;
        config.options.scaled_width = out_w;
        config.options.scaled_height = out_h;
    }
    config.output.u.RGBA.rgba = rgba;
    config.output.u.RGBA.stride = out_w * 4;
    config.output.u.RGBA.size = (size_t)out_w * out_h * 4;
    VP8StatusCode code = WebPDecode(data, size, &config);
    WebPFreeDecBuffer(&config.output);
    return code == VP8_STATUS_OK ? IMG_OK : fail(result, code);
}

// [start, end) of a canvas span once the canvas is scaled from `canvas` to `out` pixels: at least
// one pixel, inside the scaled canvas.
static void scaled_span(int start, int length, int canvas, int out, int *out_start, int *out_length) {
    double scale = (double)out / canvas;
    int a = (int)(start * scale + 0.5), b = (int)((start + length) * scale + 0.5);
    if (b - a < 1) b = a + 1;
    if (b > out) { a -= b - out; b = out; }
    if (a < 0) a = 0;
    *out_start = a;
    *out_length = b - a;
}

// An animation: WebPDemux reads every chunk and every frame's bitstream header (WebPGetFeatures)
// and checks that each frame lies on the canvas; the frame count and canvas are checked against the
// limits; then only the first frame is decoded, scaled with the canvas to out_w x out_h, and placed
// on it over white (the canvas starts transparent, as libwebp's animation decoder starts it). libwebp's WebPAnimDecoder composites a whole canvas for every frame:
// 600 frames of 2x2 pixels on a 10000x10000 canvas took 46 s and 1.2 GB.
static int decode_animation(const unsigned char *data, size_t size, const img_limits *limits, const img_info *info,
                            int out_w, int out_h, unsigned char *rgb, img_result *result) {
    WebPData whole = { data, size };
    WebPDemuxer *demux = WebPDemux(&whole);
    if (!demux) {
        snprintf(result->message, sizeof result->message, "the animation cannot be read");
        return result->status = IMG_ECORRUPT;
    }
    WebPIterator frame;
    memset(&frame, 0, sizeof frame);
    long long frames = WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT);
    int status = img_animation_check(frames, info->width, info->height, limits, result);
    if (status == IMG_OK && !WebPDemuxGetFrame(demux, 1, &frame)) {
        snprintf(result->message, sizeof result->message, "the animation cannot be read");
        status = result->status = IMG_ECORRUPT;
    }
    WebPBitstreamFeatures first;
    if (status == IMG_OK && WebPGetFeatures(frame.fragment.bytes, frame.fragment.size, &first) == VP8_STATUS_OK
        && whole_image_too_large(frame.width, frame.height, first.format, first.has_alpha, limits, result))
        status = result->status;
    if (status == IMG_OK) {
        int x, y, w, h;
        scaled_span(frame.x_offset, frame.width, info->width, out_w, &x, &w);
        scaled_span(frame.y_offset, frame.height, info->height, out_h, &y, &h);
        unsigned char *rgba = malloc((size_t)w * h * 4);
        if (!rgba) status = result->status = IMG_ENOMEM;
        else status = decode_rgba(frame.fragment.bytes, frame.fragment.size, frame.width, frame.height, w, h, rgba, result);
        if (status == IMG_OK) {
            memset(rgb, 255, (size_t)out_w * out_h * 3);
            flatten(rgba, (size_t)w * h);
            for (int row = 0; row < h; row++)
                memcpy(rgb + ((size_t)(y + row) * out_w + x) * 3, rgba + (size_t)row * w * 3, (size_t)w * 3);
        }
        free(rgba);
    }
    WebPDemuxReleaseIterator(&frame);
    WebPDemuxDelete(demux);
    return status;
}

int img_webp_decode(const unsigned char *data, size_t size, int max_side, const img_limits *limits,
                    img_info *info, unsigned char **pixels, int *width, int *height, img_result *result) {
    *pixels = NULL;
    int status = img_webp_probe(data, size, info, result);
    if (status != IMG_OK) return status;
    if (limits && limits->max_pixels > 0 && (long long)info->width * info->height > limits->max_pixels) {
        snprintf(result->message, sizeof result->message, "image %dx%d exceeds the %.4g MP limit",
                 info->width, info->height, limits->max_pixels / 1e6);
        return result->status = IMG_ETOOLARGE;
    }
    // Lossless and transparent images are decoded whole, scaled or not (an animation's first frame
    // is checked the same way, by its own size, in decode_animation).
    if (!info->progressive && whole_image_too_large(info->width, info->height, info->color_type, info->components == 4, limits, result))
        return result->status;
    // An image wanted smaller is scaled by the decoder (every block is still decoded).
    int out_w = info->width, out_h = info->height;
    int longest = out_w > out_h ? out_w : out_h;
    if (max_side > 0 && longest > max_side) {
        double scale = (double)max_side / longest;
        out_w = (int)(out_w * scale + 0.5);
        out_h = (int)(out_h * scale + 0.5);
        if (out_w < 1) out_w = 1;
        if (out_h < 1) out_h = 1;
    }
    size_t count = (size_t)out_w * out_h;
    if (info->progressive) {
        unsigned char *rgb = malloc(count * 3);
        if (!rgb) return result->status = IMG_ENOMEM;
        status = decode_animation(data, size, limits, info, out_w, out_h, rgb, result);
        if (status != IMG_OK) {
            free(rgb);
            return status;
        }
        *pixels = rgb;
    } else {
        unsigned char *rgba = malloc(count * 4);
        if (!rgba) return result->status = IMG_ENOMEM;
        status = decode_rgba(data, size, info->width, info->height, out_w, out_h, rgba, result);
        if (status != IMG_OK) {
            free(rgba);
            return status;
        }
        flatten(rgba, count);
        *pixels = realloc(rgba, count * 3) ?: rgba;
    }
    *width = out_w;
    *height = out_h;
    return IMG_OK;
}

int img_webp_metadata(const unsigned char *data, size_t size, int kind, unsigned char **out, size_t *out_size) {
    *out = NULL;
    *out_size = 0;
    WebPData whole = { data, size };
    WebPDemuxer *demux = WebPDemux(&whole);
    if (!demux) return -1;
    int found = -1;
    WebPChunkIterator chunk;
    const char *fourcc = kind == IMG_META_EXIF ? "EXIF" : kind == IMG_META_XMP ? "XMP " : "ICCP";
    if (WebPDemuxGetChunk(demux, fourcc, 1, &chunk)) {
        const uint8_t *bytes = chunk.chunk.bytes;
        size_t n = chunk.chunk.size;
        // EXIF chunks hold the TIFF data, some writers with the JPEG "Exif\0\0" header before it.
        int add_header = kind == IMG_META_EXIF && !(n >= 6 && memcmp(bytes, "Exif\0\0", 6) == 0);
        if ((*out = malloc(n + (add_header ? 6 : 0)))) {
            if (add_header) memcpy(*out, "Exif\0\0", 6);
            memcpy(*out + (add_header ? 6 : 0), bytes, n);
            *out_size = n + (add_header ? 6 : 0);
            found = 0;
        }
        WebPDemuxReleaseChunkIterator(&chunk);
    }
    WebPDemuxDelete(demux);
    return found;
}
