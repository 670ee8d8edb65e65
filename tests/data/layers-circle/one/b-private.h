#pragma once
int b (void);
