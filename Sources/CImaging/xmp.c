// libexpat: the capture dates of an XMP packet, as attributes (rdf:Description exif:DateTimeOriginal="…")
// or as elements (<exif:DateTimeOriginal>…</exif:DateTimeOriginal>). Namespaces are resolved, so
// any prefix bound to the right URI counts. expat reports errors as values; nothing longjmps.
#include <string.h>
#include <expat.h>
#include "imaging.h"

#define NS_EXIF "http://ns.adobe.com/exif/1.0/"
#define NS_XMP "http://ns.adobe.com/xap/1.0/"
#define NS_PHOTOSHOP "http://ns.adobe.com/photoshop/1.0/"

typedef struct {
    img_xmp *out;
    char *collecting;    // the field an element's text goes to, or NULL
    size_t length;
} state;

// The field a namespaced name ("URI|local") fills, or NULL.
static char *field(img_xmp *out, const char *name) {
    if (strcmp(name, NS_EXIF "|DateTimeOriginal") == 0) return out->date_time_original;
    if (strcmp(name, NS_XMP "|CreateDate") == 0) return out->create_date;
    if (strcmp(name, NS_PHOTOSHOP "|DateCreated") == 0) return out->date_created;
    return NULL;
}

static void on_start(void *data, const XML_Char *name, const XML_Char **attributes) {
    state *s = data;
    for (int i = 0; attributes[i]; i += 2) {
        char *target = field(s->out, attributes[i]);
        if (target && !target[0]) {
            strncpy(target, attributes[i + 1], IMG_XMP_FIELD - 1);
            target[IMG_XMP_FIELD - 1] = 0;
        }
    }
    char *target = field(s->out, name);
    s->collecting = target && !target[0] ? target : NULL;
    s->length = 0;
}

static void on_end(void *data, const XML_Char *name) {
    (void)name;
    ((state *)data)->collecting = NULL;
}

static void on_text(void *data, const XML_Char *text, int length) {
    state *s = data;
    if (!s->collecting) return;
    for (int i = 0; i < length && s->length < IMG_XMP_FIELD - 1; i++) {
        char c = text[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        s->collecting[s->length++] = c;
    }
    s->collecting[s->length] = 0;
}

int img_xmp_dates(const char *xml, size_t size, img_xmp *out) {
    memset(out, 0, sizeof *out);
    if (size > 16 << 20) return -1;
    XML_Parser parser = XML_ParserCreateNS(NULL, '|');
    if (!parser) return -1;
    state s = { out, NULL, 0 };
    XML_SetUserData(parser, &s);
    XML_SetElementHandler(parser, on_start, on_end);
    XML_SetCharacterDataHandler(parser, on_text);
    // An XMP packet ends with its own trailer; what follows it (padding) is not XML.
    int ok = XML_Parse(parser, xml, (int)size, 1) != XML_STATUS_ERROR;
    XML_ParserFree(parser);
    return ok || out->date_time_original[0] || out->create_date[0] || out->date_created[0] ? 0 : -1;
}
