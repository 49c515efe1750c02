// LittleCMS: RGB pixels from their ICC profile to sRGB, for thumbnails and the gallery. lcms2
// reports errors through a handler (here: silence) and return values; nothing longjmps.
#include <lcms2.h>
#include "imaging.h"

static void quiet(cmsContext context, cmsUInt32Number code, const char *text) { (void)context; (void)code; (void)text; }

int img_icc_valid(const unsigned char *icc, size_t icc_size) {
    if (!icc || icc_size < 132 || icc_size > 16 << 20) return -1;
    // The header's own size must be the block's: bytes after a profile are not the profile's.
    unsigned long declared = (unsigned long)icc[0] << 24 | (unsigned long)icc[1] << 16 | (unsigned long)icc[2] << 8 | icc[3];
    if (declared != icc_size) return -1;
    cmsSetLogErrorHandler(quiet);
    cmsHPROFILE profile = cmsOpenProfileFromMem(icc, (cmsUInt32Number)icc_size);
    if (!profile) return -1;
    cmsCloseProfile(profile);
    return 0;
}

int img_rgb_to_srgb(unsigned char *rgb, size_t pixels, const unsigned char *icc, size_t icc_size) {
    if (!icc || icc_size < 132 || icc_size > 16 << 20) return -1;
    cmsSetLogErrorHandler(quiet);
    cmsHPROFILE source = cmsOpenProfileFromMem(icc, (cmsUInt32Number)icc_size);
    if (!source) return -1;
    int status = -1;
    if (cmsGetColorSpace(source) == cmsSigRgbData) {
        cmsHPROFILE srgb = cmsCreate_sRGBProfile();
        cmsHTRANSFORM transform = srgb ? cmsCreateTransform(source, TYPE_RGB_8, srgb, TYPE_RGB_8, INTENT_PERCEPTUAL, 0) : NULL;
        if (transform) {
            // In steps, so that the pixel count always fits lcms2's 32-bit count.
            for (size_t done = 0; done < pixels;) {
                size_t n = pixels - done > (1u << 30) ? (1u << 30) : pixels - done;
                cmsDoTransform(transform, rgb + done * 3, rgb + done * 3, (cmsUInt32Number)n);
                done += n;
            }
            cmsDeleteTransform(transform);
            status = 0;
        }
        if (srgb) cmsCloseProfile(srgb);
    }
    cmsCloseProfile(source);
    return status;
}
