// Pixel operations on 8-bit RGB: area-average downscale and EXIF orientation.
#include <stdlib.h>
#include <string.h>
#include "imaging.h"

// Each destination pixel is the average of the source area it covers, with fractional
// coverage at the edges (a box filter of exactly the scale factor): no aliasing, no nearest-neighbour.
int img_resize_area(const unsigned char *src, int sw, int sh, unsigned char *dst, int dw, int dh) {
    if (sw <= 0 || sh <= 0 || dw <= 0 || dh <= 0) return -1;
    double sx = (double)sw / dw, sy = (double)sh / dh;
    double *acc = calloc((size_t)dw * 3, sizeof(double));
    if (!acc) return -1;
    for (int y = 0; y < dh; y++) {
        double y0 = y * sy, y1 = y0 + sy;
        memset(acc, 0, (size_t)dw * 3 * sizeof(double));
        for (int iy = (int)y0; iy < sh && iy < y1; iy++) {
            double wy = (iy + 1 < y1 ? iy + 1 : y1) - (iy > y0 ? iy : y0);
            if (wy <= 0) continue;
            const unsigned char *row = src + (size_t)iy * sw * 3;
            for (int x = 0; x < dw; x++) {
                double x0 = x * sx, x1 = x0 + sx;
                double r = 0, g = 0, b = 0;
                for (int ix = (int)x0; ix < sw && ix < x1; ix++) {
                    double wx = (ix + 1 < x1 ? ix + 1 : x1) - (ix > x0 ? ix : x0);
                    if (wx <= 0) continue;
                    const unsigned char *p = row + (size_t)ix * 3;
                    r += p[0] * wx;
                    g += p[1] * wx;
                    b += p[2] * wx;
                }
                acc[x * 3] += r * wy;
                acc[x * 3 + 1] += g * wy;
                acc[x * 3 + 2] += b * wy;
            }
        }
        double area = sx * sy;
        unsigned char *out = dst + (size_t)y * dw * 3;
        for (int i = 0; i < dw * 3; i++) {
            double v = acc[i] / area + 0.5;
            out[i] = (unsigned char)(v > 255 ? 255 : v);
        }
    }
    free(acc);
    return 0;
}

// Orientation values (EXIF 0x0112): how the stored pixels must be transformed to be upright.
// 1 as is, 2 mirror horizontally, 3 rotate 180, 4 mirror vertically, 5 transpose,
// 6 rotate 90 clockwise, 7 transverse, 8 rotate 90 counter-clockwise.
int img_orient(const unsigned char *src, int w, int h, int orientation, unsigned char *dst, int *ow, int *oh) {
    int swap = orientation >= 5 && orientation <= 8;
    int W = swap ? h : w, H = swap ? w : h;
    *ow = W;
    *oh = H;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            int sx, sy;  // the source pixel shown at (x, y) of the upright image
            switch (orientation) {
            case 2: sx = w - 1 - x; sy = y; break;
            case 3: sx = w - 1 - x; sy = h - 1 - y; break;
            case 4: sx = x; sy = h - 1 - y; break;
            case 5: sx = y; sy = x; break;
            case 6: sx = y; sy = h - 1 - x; break;
            case 7: sx = w - 1 - y; sy = h - 1 - x; break;
            case 8: sx = w - 1 - y; sy = x; break;
            default: sx = x; sy = y; break;
            }
            memcpy(dst + ((size_t)y * W + x) * 3, src + ((size_t)sy * w + sx) * 3, 3);
        }
    }
    return 0;
}

void img_free(void *p) { free(p); }
