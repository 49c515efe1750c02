// The limits every animated format is held to, whatever decodes it: a viewer composites the whole
// canvas for each frame it plays, so the work grows with frames x canvas, not with the file's size.
#include <stdio.h>
#include "imaging.h"

int img_animation_check(long long frames, int width, int height, const img_limits *limits, img_result *result) {
    if (frames <= 0) {
        snprintf(result->message, sizeof result->message, "the animation has no frames");
        return result->status = IMG_ECORRUPT;
    }
    if (!limits) return IMG_OK;
    if (limits->max_frames > 0 && frames > limits->max_frames) {
        snprintf(result->message, sizeof result->message, "an animation of %lld frames exceeds the limit of %d frames",
                 frames, limits->max_frames);
        return result->status = IMG_ETOOLARGE;
    }
    if (limits->max_animation_pixels > 0 && (long long)width * height * frames > limits->max_animation_pixels) {
        snprintf(result->message, sizeof result->message,
                 "an animation of %lld frames on a %dx%d canvas exceeds the limit of %.4g gigapixels (frames x canvas)",
                 frames, width, height, limits->max_animation_pixels / 1e9);
        return result->status = IMG_ETOOLARGE;
    }
    return IMG_OK;
}
