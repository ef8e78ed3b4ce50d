package sim

// topic is the vocabulary of a family of filler questions: a plural noun
// phrase for the question text and the options offered as answers.
type topic struct {
	key   string // upper-case stem of the question names
	noun  string
	items []string
}

// fillerTopics returns the topics filler questions are drawn from. Each
// topic yields several questions (owned, bought, heard of, ...), so a few
// dozen topics are enough for libraries of hundreds of questions.
func fillerTopics() []topic {
	return []topic{
		{"PETS", "pets", []string{"Dog", "Cat", "Fish", "Bird", "Rabbit", "Hamster", "Guinea pig", "Reptile", "Horse", "Ferret", "Chickens", "Tortoise"}},
		{"STREAMING", "streaming services", []string{"Netflix", "Amazon Prime Video", "Disney+", "Max", "Hulu", "Apple TV+", "Paramount+", "Peacock", "YouTube Premium", "Crunchyroll", "DAZN"}},
		{"SMARTPHONE", "smartphone brands", []string{"Apple", "Samsung", "Google", "Xiaomi", "Motorola", "OnePlus", "Oppo", "Sony", "Nokia", "Huawei", "Honor"}},
		{"VEHICLE", "vehicle types", []string{"Sedan", "Hatchback", "SUV", "Pickup truck", "Minivan", "Coupe", "Convertible", "Electric car", "Hybrid car", "Motorcycle", "Scooter"}},
		{"ALCOHOL", "alcoholic beverages", []string{"Beer", "Red wine", "White wine", "Rosé", "Sparkling wine", "Vodka", "Whisky", "Gin", "Rum", "Tequila", "Hard seltzer", "Cider"}},
		{"SNACKS", "snacks", []string{"Potato chips", "Tortilla chips", "Popcorn", "Pretzels", "Nuts", "Chocolate bars", "Cookies", "Crackers", "Granola bars", "Fruit snacks", "Jerky"}},
		{"SOFT_DRINKS", "soft drinks", []string{"Cola", "Diet cola", "Lemon-lime soda", "Energy drinks", "Sports drinks", "Iced tea", "Sparkling water", "Fruit juice", "Root beer", "Ginger ale", "Kombucha"}},
		{"GAMING", "gaming platforms", []string{"PlayStation 5", "PlayStation 4", "Xbox Series X|S", "Xbox One", "Nintendo Switch", "PC", "Mac", "Smartphone", "Tablet", "Steam Deck", "VR headset"}},
		{"FINANCE", "financial products", []string{"Checking account", "Savings account", "Credit card", "Mortgage", "Personal loan", "Car loan", "Investment account", "Retirement account", "Life insurance", "Cryptocurrency", "Buy now, pay later"}},
		{"TRAVEL", "types of trips", []string{"Beach holiday", "City break", "Cruise", "Camping trip", "Ski trip", "Road trip", "Business trip", "Theme park visit", "Backpacking", "All-inclusive resort", "Visiting friends and relatives"}},
		{"SOCIAL_MEDIA", "social media platforms", []string{"Facebook", "Instagram", "TikTok", "X (Twitter)", "Snapchat", "LinkedIn", "Pinterest", "Reddit", "YouTube", "WhatsApp", "Threads"}},
		{"GROCERY", "grocery retailers", []string{"Walmart", "Costco", "Kroger", "Aldi", "Lidl", "Target", "Whole Foods", "Trader Joe's", "Amazon Fresh", "Tesco", "Carrefour"}},
		{"AILMENTS", "health conditions", []string{"Allergies", "Asthma", "Arthritis", "Back pain", "Diabetes Type 1", "Diabetes Type 2", "High blood pressure", "High cholesterol", "Migraine", "Insomnia", "Acid reflux"}},
		{"SPORTS", "sports", []string{"Running", "Cycling", "Swimming", "Football (soccer)", "Basketball", "Tennis", "Golf", "Yoga", "Weight training", "Hiking", "Skiing"}},
		{"PERSONAL_CARE", "personal care products", []string{"Moisturizer", "Sunscreen", "Face wash", "Shampoo", "Conditioner", "Deodorant", "Body lotion", "Razor", "Electric shaver", "Hair dye", "Fragrance"}},
		{"APPLIANCES", "household appliances", []string{"Dishwasher", "Washing machine", "Tumble dryer", "Microwave", "Air fryer", "Coffee machine", "Robot vacuum", "Stand mixer", "Air purifier", "Smart thermostat", "Blender"}},
		{"NEWS", "news sources", []string{"Television news", "Printed newspaper", "Newspaper website", "News app", "Radio", "Podcasts", "Social media", "News aggregator", "Magazines", "E-mail newsletters", "Word of mouth"}},
		{"HOT_DRINKS", "hot beverages", []string{"Filter coffee", "Espresso", "Cappuccino", "Latte", "Instant coffee", "Coffee pods", "Black tea", "Green tea", "Herbal tea", "Hot chocolate", "Chai"}},
		{"INSURANCE", "insurance policies", []string{"Car insurance", "Home insurance", "Renters insurance", "Health insurance", "Life insurance", "Travel insurance", "Pet insurance", "Dental insurance", "Disability insurance", "Gadget insurance", "Legal protection"}},
		{"DIET", "diets", []string{"Vegetarian", "Vegan", "Pescatarian", "Gluten-free", "Lactose-free", "Keto", "Paleo", "Low-carb", "Intermittent fasting", "Halal", "Kosher"}},
		{"MUSIC", "music genres", []string{"Pop", "Rock", "Hip-hop", "Electronic", "Country", "Jazz", "Classical", "R&B", "Latin", "Metal", "Folk"}},
		{"DEVICES", "electronic devices", []string{"Laptop", "Desktop computer", "Tablet", "Smartwatch", "Fitness tracker", "Smart speaker", "Smart TV", "Games console", "E-reader", "Wireless earbuds", "Digital camera"}},
		{"APPAREL", "clothing retailers", []string{"Zara", "H&M", "Uniqlo", "Nike", "Adidas", "Gap", "Primark", "Levi's", "Shein", "Old Navy", "Marks & Spencer"}},
		{"HOME_IMPROVEMENT", "home improvement projects", []string{"Kitchen remodel", "Bathroom remodel", "Interior painting", "New flooring", "Roof repair", "Solar panels", "Garden landscaping", "Window replacement", "Insulation", "Home extension", "Smart home installation"}},
		{"COSMETICS", "cosmetics", []string{"Foundation", "Concealer", "Mascara", "Eyeliner", "Lipstick", "Lip gloss", "Blush", "Eyeshadow", "Nail polish", "Setting spray", "Bronzer"}},
		{"QSR", "fast food restaurants", []string{"McDonald's", "Burger King", "KFC", "Subway", "Starbucks", "Domino's", "Pizza Hut", "Taco Bell", "Wendy's", "Chipotle", "Five Guys"}},
	}
}

// questionVariant is one way of asking about a topic.
type questionVariant struct {
	key, typ, text string // text is a format with one %s for the topic noun
}

// questionVariants are the ways a filler question is asked, by type.
func questionVariants() []questionVariant {
	return []questionVariant{
		{"OWN", typeMultiPunch, "Which of the following %s do you currently use or own?"},
		{"P12M", typeMultiPunch, "Which of the following %s have you purchased in the past 12 months?"},
		{"AWARE", typeMultiPunch, "Which of the following %s have you heard of?"},
		{"INTEND", typeMultiPunch, "Which of the following %s are you considering in the next 6 months?"},
		{"MOST", typeSinglePunch, "Which of the following %s do you use most often?"},
		{"PREF", typeSinglePunch, "Which of the following %s do you prefer?"},
		{"OPEN", typeText, "In your own words, what matters most to you when choosing %s?"},
	}
}
