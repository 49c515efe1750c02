// libwebp: probe, decode (still or the first frame of an animation, alpha composited on white)
// and metadata chunks. libwebp reports errors as status codes; nothing longjmps.
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
    // A still image wanted smaller is scaled by the decoder (every block is still decoded).
    int out_w = info->width, out_h = info->height;
    int longest = out_w > out_h ? out_w : out_h;
    if (max_side > 0 && longest > max_side && !info->progressive) {
        double scale = (double)max_side / longest;
        out_w = (int)(out_w * scale + 0.5);
        out_h = (int)(out_h * scale + 0.5);
        if (out_w < 1) out_w = 1;
        if (out_h < 1) out_h = 1;
    }
    long long count = (long long)out_w * out_h;
    unsigned char *rgba = malloc((size_t)count * 4);
    if (!rgba) return result->status = IMG_ENOMEM;
    if (info->progressive) {
        // An animation: every frame is decoded (so a damaged later frame is found); the first is kept.
        WebPData whole = { data, size };
        WebPAnimDecoderOptions options;
        WebPAnimDecoderOptionsInit(&options);
        options.color_mode = MODE_RGBA;
        WebPAnimDecoder *decoder = WebPAnimDecoderNew(&whole, &options);
        if (!decoder) {
            free(rgba);
            snprintf(result->message, sizeof result->message, "the animation cannot be read");
            return result->status = IMG_ECORRUPT;
        }
        int frames = 0;
        while (WebPAnimDecoderHasMoreFrames(decoder)) {
            uint8_t *frame;
            int timestamp;
            if (!WebPAnimDecoderGetNext(decoder, &frame, &timestamp)) {
                snprintf(result->message, sizeof result->message, "frame %d cannot be decoded", frames + 1);
                status = result->status = IMG_ECORRUPT;
                break;
            }
            if (frames++ == 0) memcpy(rgba, frame, (size_t)count * 4);
        }
        WebPAnimDecoderDelete(decoder);
        if (status == IMG_OK && frames == 0) {
            snprintf(result->message, sizeof result->message, "the animation has no frames");
            status = result->status = IMG_ECORRUPT;
        }
    } else {
        WebPDecoderConfig config;
        if (!WebPInitDecoderConfig(&config)) {
            free(rgba);
            return result->status = IMG_ECORRUPT;
        }
        config.output.colorspace = MODE_RGBA;
        config.output.is_external_memory = 1;
        if (out_w != info->width || out_h != info->height) {
            config.options.use_scaling = 1;
            config.options.scaled_width = out_w;
            config.options.scaled_height = out_h;
        }
        config.output.u.RGBA.rgba = rgba;
        config.output.u.RGBA.stride = out_w * 4;
        config.output.u.RGBA.size = (size_t)count * 4;
        VP8StatusCode code = WebPDecode(data, size, &config);
        WebPFreeDecBuffer(&config.output);
        if (code != VP8_STATUS_OK) status = fail(result, code);
    }
    if (status != IMG_OK) {
        free(rgba);
        return status;
    }
    flatten(rgba, (size_t)count);
    *pixels = realloc(rgba, (size_t)count * 3) ?: rgba;
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
