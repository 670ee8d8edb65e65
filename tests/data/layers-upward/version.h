#define VERSION 1
