// Writes a Display P3 ICC profile (P3 primaries, D65 white, the sRGB tone curve) with LittleCMS:
//   cc Fixtures/make_p3_profile.c -llcms2 -o p3 && ./p3 out.icc
#include <lcms2.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s out.icc\n", argv[0]); return 64; }
    cmsCIExyY white = { 0.3127, 0.3290, 1.0 };
    cmsCIExyYTRIPLE primaries = { { 0.680, 0.320, 1.0 }, { 0.265, 0.690, 1.0 }, { 0.150, 0.060, 1.0 } };
    cmsFloat64Number srgb[5] = { 2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045 };
    cmsToneCurve *curve = cmsBuildParametricToneCurve(NULL, 4, srgb);
    cmsToneCurve *curves[3] = { curve, curve, curve };
    cmsHPROFILE profile = cmsCreateRGBProfile(&white, &primaries, curves);
    cmsMLU *description = cmsMLUalloc(NULL, 1);
    cmsMLUsetASCII(description, "en", "US", "Display P3 (fixture)");
    cmsWriteTag(profile, cmsSigProfileDescriptionTag, description);
    int ok = profile && cmsSaveProfileToFile(profile, argv[1]);
    cmsMLUfree(description);
    cmsFreeToneCurve(curve);
    cmsCloseProfile(profile);
    return ok ? 0 : 1;
}
