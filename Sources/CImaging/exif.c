// libexif: the tags the journal uses, and a copy with the orientation reset.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libexif/exif-data.h>
#include <libexif/exif-loader.h>
#include "imaging.h"

static void copy_ascii(ExifData *data, ExifIfd ifd, ExifTag tag, char *out, size_t size) {
    ExifEntry *entry = exif_content_get_entry(data->ifd[ifd], tag);
    out[0] = 0;
    if (!entry || entry->format != EXIF_FORMAT_ASCII || !entry->data) return;
    size_t n = entry->size < size - 1 ? entry->size : size - 1;
    memcpy(out, entry->data, n);
    out[n] = 0;
    // Trim trailing NULs and spaces (cameras pad).
    for (size_t i = strlen(out); i > 0 && (out[i - 1] == ' '); i--) out[i - 1] = 0;
}

static ExifData *load(const unsigned char *data, size_t size) {
    // "Exif\0\0" and TIFF data (PNG eXIf, HEIF and WebP blocks) load directly; a JPEG through the loader.
    if (size > 6 && memcmp(data, "Exif\0\0", 6) == 0) {
        ExifData *exif = exif_data_new_from_data(data, (unsigned int)size);
        if (exif && !exif->ifd[EXIF_IFD_0]->count && !exif->ifd[EXIF_IFD_EXIF]->count) {
            exif_data_unref(exif);
            return NULL;
        }
        return exif;
    }
    ExifLoader *loader = exif_loader_new();
    if (!loader) return NULL;
    exif_loader_write(loader, (unsigned char *)data, (unsigned int)size);
    ExifData *exif = exif_loader_get_data(loader);
    exif_loader_unref(loader);
    return exif;
}

int img_exif_read(const unsigned char *data, size_t size, img_exif *out) {
    memset(out, 0, sizeof *out);
    ExifData *exif = load(data, size);
    if (!exif) return -1;
    ExifEntry *orientation = exif_content_get_entry(exif->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
    if (orientation && orientation->format == EXIF_FORMAT_SHORT && orientation->components == 1) {
        int value = exif_get_short(orientation->data, exif_data_get_byte_order(exif));
        out->orientation = value >= 1 && value <= 8 ? value : 0;
    }
    copy_ascii(exif, EXIF_IFD_EXIF, EXIF_TAG_DATE_TIME_ORIGINAL, out->date_time_original, sizeof out->date_time_original);
    copy_ascii(exif, EXIF_IFD_EXIF, (ExifTag)0x9011, out->offset_time_original, sizeof out->offset_time_original);
    copy_ascii(exif, EXIF_IFD_0, EXIF_TAG_MAKE, out->make, sizeof out->make);
    copy_ascii(exif, EXIF_IFD_0, EXIF_TAG_MODEL, out->model, sizeof out->model);
    copy_ascii(exif, EXIF_IFD_EXIF, EXIF_TAG_SUB_SEC_TIME_ORIGINAL, out->subsec_time_original, sizeof out->subsec_time_original);
    exif_data_unref(exif);
    return 0;
}

int img_exif_normalized(const unsigned char *data, size_t size, unsigned char **out, size_t *out_size) {
    *out = NULL;
    *out_size = 0;
    ExifData *exif = load(data, size);
    if (!exif) return -1;
    ExifEntry *orientation = exif_content_get_entry(exif->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
    if (orientation && orientation->format == EXIF_FORMAT_SHORT && orientation->components == 1)
        exif_set_short(orientation->data, exif_data_get_byte_order(exif), 1);
    // The embedded thumbnail would show the old orientation: drop it.
    if (exif->data) {
        free(exif->data);
        exif->data = NULL;
        exif->size = 0;
    }
    unsigned char *bytes = NULL;
    unsigned int length = 0;
    exif_data_save_data(exif, &bytes, &length);
    exif_data_unref(exif);
    if (!bytes) return -1;
    *out = bytes;  // starts with "Exif\0\0", ready for an APP1 marker
    *out_size = length;
    return 0;
}
