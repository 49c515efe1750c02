// libjpeg-turbo under setjmp: decode (scaled, validating), probe and encode.
#include <stdio.h>      // jpeglib.h needs FILE and size_t first
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>
#include "imaging.h"

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    img_result *result;
    int max_scans;
    long long max_scan_work;  // scans x coefficients (0: no limit)
    long long coefficients;   // of a file of several scans, else 0
    int too_large;
} error_mgr;

static void on_error(j_common_ptr cinfo) {
    error_mgr *err = (error_mgr *)cinfo->err;
    char buffer[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, buffer);
    snprintf(err->result->message, sizeof err->result->message, "%s", buffer);
    longjmp(err->jump, 1);
}

// Warnings (msg_level -1) that mean pixels were lost are counted; the one warning seen in
// valid files with intact pixels, "N extraneous bytes before marker", is tolerated.
static void on_message(j_common_ptr cinfo, int msg_level) {
    error_mgr *err = (error_mgr *)cinfo->err;
    if (msg_level != -1) return;
    if (cinfo->err->msg_code == JWRN_EXTRANEOUS_DATA) {
        err->result->extraneous += cinfo->err->msg_parm.i[0];
        return;
    }
    if (err->result->warnings == 0) {
        char buffer[JMSG_LENGTH_MAX];
        (*cinfo->err->format_message)(cinfo, buffer);
        snprintf(err->result->message, sizeof err->result->message, "%s", buffer);
    }
    err->result->warnings++;
}

static void on_progress(j_common_ptr cinfo) {
    error_mgr *err = (error_mgr *)cinfo->err;
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (err->max_scans > 0 && d->input_scan_number > err->max_scans) {
        snprintf(err->result->message, sizeof err->result->message,
                 "progressive JPEG has more than %d scans", err->max_scans);
        err->too_large = 1;
        longjmp(err->jump, 1);
    }
    // Each scan of a file of several scans may touch every coefficient: the work grows with scans
    // x coefficients, which a small file can make huge (499 scans of a 10000x10000 image: 12 s).
    if (err->max_scan_work > 0 && err->coefficients > 0 && (long long)d->input_scan_number * err->coefficients > err->max_scan_work) {
        snprintf(err->result->message, sizeof err->result->message,
                 "a JPEG of %d scans over %lld coefficients is more work than the limit of %.4g billion allows",
                 d->input_scan_number, err->coefficients, err->max_scan_work / 1e9);
        err->too_large = 1;
        longjmp(err->jump, 1);
    }
}

static void setup_errors(j_common_ptr cinfo, error_mgr *err, img_result *result) {
    cinfo->err = jpeg_std_error(&err->pub);
    err->pub.error_exit = on_error;
    err->pub.emit_message = on_message;
    err->result = result;
    err->too_large = 0;
    result->status = IMG_OK;
    result->warnings = 0;
    result->extraneous = 0;
    result->message[0] = 0;
}

static int classify(const img_result *result) {
    // Memory the system would not give is not damage in the file.
    if (strstr(result->message, "Insufficient memory")) return IMG_ENOMEM;
    // libjpeg's own messages for data that ends early.
    if (strstr(result->message, "Premature end") || strstr(result->message, "too small") ||
        strstr(result->message, "empty"))
        return IMG_ETRUNCATED;
    return IMG_ECORRUPT;
}

static void fill_info(j_decompress_ptr d, img_info *info) {
    info->width = (int)d->image_width;
    info->height = (int)d->image_height;
    info->components = d->num_components;
    info->color_type = d->jpeg_color_space;
    info->bit_depth = d->data_precision;
    info->progressive = d->progressive_mode;
    // A file of several scans (progressive, or a baseline one whose first scan does not hold
    // every component) is decoded through whole-image arrays of every component's DCT blocks, 64
    // 2-byte coefficients each, sides rounded up to the component's sampling factors (jdcoefct.c,
    // jdinput.c's has_multiple_scans): subsampled chroma keeps a quarter of luma's, not as much.
    info->coefficient_bytes = 0;
    int multiple_scans = d->progressive_mode || d->comps_in_scan < d->num_components;
    for (int c = 0; multiple_scans && c < d->num_components; c++) {
        jpeg_component_info *comp = &d->comp_info[c];
        long long wide = (comp->width_in_blocks + comp->h_samp_factor - 1) / comp->h_samp_factor * comp->h_samp_factor;
        long long high = (comp->height_in_blocks + comp->v_samp_factor - 1) / comp->v_samp_factor * comp->v_samp_factor;
        info->coefficient_bytes += wide * high * DCTSIZE2 * (long long)sizeof(JCOEF);
    }
}

int img_jpeg_probe(const unsigned char *data, size_t size, img_info *info, img_result *result) {
    struct jpeg_decompress_struct d;
    error_mgr err;
    memset(info, 0, sizeof *info);
    setup_errors((j_common_ptr)&d, &err, result);
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&d);
        return result->status = classify(result);
    }
    jpeg_create_decompress(&d);
    jpeg_mem_src(&d, data, (unsigned long)size);
    jpeg_read_header(&d, TRUE);
    fill_info(&d, info);
    jpeg_destroy_decompress(&d);
    return IMG_OK;
}

int img_jpeg_decode(const unsigned char *data, size_t size, int scale_denom, const img_limits *limits,
                    img_info *info, unsigned char **pixels, int *width, int *height, img_result *result) {
    struct jpeg_decompress_struct d;
    struct jpeg_progress_mgr progress;
    error_mgr err;
    unsigned char *volatile out = NULL;
    unsigned char *volatile row = NULL;
    *pixels = NULL;
    memset(info, 0, sizeof *info);
    setup_errors((j_common_ptr)&d, &err, result);
    err.max_scans = limits ? limits->max_scans : 0;
    err.max_scan_work = limits ? limits->max_scan_work : 0;
    err.coefficients = 0;
    if (setjmp(err.jump)) {
        free(out);
        free(row);
        jpeg_destroy_decompress(&d);
        return result->status = err.too_large ? IMG_ETOOLARGE : classify(result);
    }
    jpeg_create_decompress(&d);
    progress.progress_monitor = on_progress;
    d.progress = &progress;
    jpeg_mem_src(&d, data, (unsigned long)size);
    jpeg_read_header(&d, TRUE);
    fill_info(&d, info);
    if (limits && limits->max_pixels > 0 && (long long)d.image_width * d.image_height > limits->max_pixels) {
        snprintf(result->message, sizeof result->message, "image %ux%u exceeds the %.4g MP limit",
                 d.image_width, d.image_height, limits->max_pixels / 1e6);
        jpeg_destroy_decompress(&d);
        return result->status = IMG_ETOOLARGE;
    }
    // libjpeg keeps a file of several scans' coefficients whole until its last scan.
    if (limits && limits->max_working_bytes > 0 && info->coefficient_bytes > limits->max_working_bytes) {
        snprintf(result->message, sizeof result->message,
                 "a %ux%u JPEG of several scans needs %lld MB to decode (its coefficients), over the %lld MB limit; jpegtran makes it baseline",
                 d.image_width, d.image_height, info->coefficient_bytes >> 20, limits->max_working_bytes >> 20);
        jpeg_destroy_decompress(&d);
        return result->status = IMG_ETOOLARGE;
    }
    err.coefficients = info->coefficient_bytes / (long long)sizeof(JCOEF);
    int cmyk = d.jpeg_color_space == JCS_CMYK || d.jpeg_color_space == JCS_YCCK;
    d.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    d.scale_num = 1;
    d.scale_denom = (unsigned)(scale_denom == 2 || scale_denom == 4 || scale_denom == 8 ? scale_denom : 1);
    d.dct_method = JDCT_ISLOW;
    // A reduced decode (a thumbnail, or validation) upsamples chroma by replication, not by
    // interpolation: the pixels are area-averaged down afterwards anyway. Full-size decodes
    // (exports) keep libjpeg's fancy upsampling.
    if (d.scale_denom > 1) d.do_fancy_upsampling = FALSE;
    jpeg_start_decompress(&d);
    int w = (int)d.output_width, h = (int)d.output_height, n = d.output_components;
    out = malloc((size_t)w * h * 3);
    row = malloc((size_t)w * n);
    if (!out || !row) {
        snprintf(result->message, sizeof result->message, "out of memory for %dx%d pixels", w, h);
        free(out);
        free(row);
        jpeg_destroy_decompress(&d);
        return result->status = IMG_ENOMEM;
    }
    // Adobe writes CMYK inverted; libjpeg-turbo cannot convert CMYK to RGB, so this does.
    int inverted = cmyk && d.saw_Adobe_marker;
    while (d.output_scanline < d.output_height) {
        unsigned char *dst = out + (size_t)d.output_scanline * w * 3;
        JSAMPROW rows[1] = { cmyk ? row : dst };
        jpeg_read_scanlines(&d, rows, 1);
        if (cmyk) {
            for (int x = 0; x < w; x++) {
                int c = row[x * 4], m = row[x * 4 + 1], yy = row[x * 4 + 2], k = row[x * 4 + 3];
                if (!inverted) { c = 255 - c; m = 255 - m; yy = 255 - yy; k = 255 - k; }
                dst[x * 3] = (unsigned char)(c * k / 255);
                dst[x * 3 + 1] = (unsigned char)(m * k / 255);
                dst[x * 3 + 2] = (unsigned char)(yy * k / 255);
            }
        }
    }
    info->scans = d.input_scan_number;
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    free(row);
    if (result->warnings > 0) {
        free(out);
        return result->status = classify(result) == IMG_ETRUNCATED ? IMG_ETRUNCATED : IMG_ECORRUPT;
    }
    *pixels = out;
    *width = w;
    *height = h;
    return IMG_OK;
}

int img_jpeg_encode(const unsigned char *rgb, int width, int height, int quality, int progressive,
                    const unsigned char *exif, size_t exif_size, const unsigned char *icc, size_t icc_size,
                    unsigned char **out, size_t *out_size, img_result *result) {
    struct jpeg_compress_struct c;
    error_mgr err;
    unsigned char *volatile buffer = NULL;
    unsigned long length = 0;
    *out = NULL;
    *out_size = 0;
    setup_errors((j_common_ptr)&c, &err, result);
    if (setjmp(err.jump)) {
        jpeg_destroy_compress(&c);
        free(buffer);
        return result->status = IMG_ECORRUPT;
    }
    jpeg_create_compress(&c);
    unsigned char *target = NULL;
    jpeg_mem_dest(&c, &target, &length);
    c.image_width = (JDIMENSION)width;
    c.image_height = (JDIMENSION)height;
    c.input_components = 3;
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, quality, TRUE);
    if (progressive) jpeg_simple_progression(&c);
    jpeg_start_compress(&c, TRUE);
    buffer = target;
    if (exif && exif_size > 0 && exif_size < 65533) jpeg_write_marker(&c, JPEG_APP0 + 1, exif, (unsigned)exif_size);
    // APP2 ICC_PROFILE segments (split as the ICC spec says when larger than one).
    if (icc && icc_size > 0 && icc_size <= 16 << 20) jpeg_write_icc_profile(&c, icc, (unsigned)icc_size);
    while (c.next_scanline < c.image_height) {
        JSAMPROW rows[1] = { (JSAMPROW)(rgb + (size_t)c.next_scanline * width * 3) };
        jpeg_write_scanlines(&c, rows, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    *out = target;
    *out_size = length;
    return IMG_OK;
}
